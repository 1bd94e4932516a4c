#!/usr/bin/env node
// Which processes use the machine's cores over a window: samples /proc/<pid>/stat of every process
// at the start and the end of [--after, --after + --for] seconds and prints the cores each used
// (CPU seconds / window), named by its command line, largest first, with the machine's total and idle
// (from /proc/stat). For a bench running beside it (scripts/device-intake.sh): where the CPU goes.
// --repeat N: N windows one after another, each one line (seconds since start, busy %, top commands).
// Usage: node scripts/proc-cpu.mjs [--after 20] [--for 10] [--top 12] [--repeat 1]
import { readdirSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { values: a } = parseArgs({ options: { after: { type: 'string', default: '20' }, for: { type: 'string', default: '10' }, top: { type: 'string', default: '12' }, repeat: { type: 'string', default: '1' } } });
const TICK = 100; // USER_HZ
const read = (f) => {
  try {
    return readFileSync(f, 'utf8');
  } catch {
    return undefined; // exited
  }
};
function snap() {
  const procs = new Map();
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    const st = read(`/proc/${pid}/stat`);
    if (!st) continue;
    const f = st.slice(st.lastIndexOf(')') + 2).split(' ');
    const cmd = (read(`/proc/${pid}/cmdline`) ?? '').split('\0').filter(Boolean).map((s) => s.split('/').pop()).slice(0, 4).join(' ');
    procs.set(pid, { ticks: Number(f[11]) + Number(f[12]), cmd });
  }
  const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  return { procs, total: cpu.reduce((x, y) => x + y, 0), idle: cpu[3] + cpu[4], t: performance.now() };
}
const sleep = (s) => new Promise((r) => setTimeout(r, s * 1000));
const t0 = performance.now();
const repeat = Number(a.repeat);
await sleep(Number(a.after));
for (let w = 0; w < repeat; w++) {
  const s0 = snap();
  await sleep(Number(a.for));
  const s1 = snap();
  const secs = (s1.t - s0.t) / 1000;
  const byCmd = new Map();
  for (const [pid, p] of s1.procs) {
    const d = p.ticks - (s0.procs.get(pid)?.ticks ?? 0); // started in the window: all of its time (one that ended in it is not seen)
    if (d <= 0) continue;
    const v = byCmd.get(p.cmd) ?? { cores: 0, n: 0 };
    byCmd.set(p.cmd, { cores: v.cores + d / TICK / secs, n: v.n + 1 });
  }
  const busy = 1 - (s1.idle - s0.idle) / (s1.total - s0.total);
  const top = [...byCmd].sort((x, y) => y[1].cores - x[1].cores).slice(0, Number(a.top));
  if (repeat === 1) {
    console.log(`cpu over ${secs.toFixed(1)} s: machine ${(100 * busy).toFixed(0)}% busy; cores used by command (processes):`);
    for (const [cmd, v] of top) console.log(`  ${v.cores.toFixed(2).padStart(6)}  (${v.n}) ${cmd}`);
  } else {
    console.log(`cpu +${((s0.t - t0) / 1000).toFixed(0)}s: ${(100 * busy).toFixed(0)}% busy: ${top.map(([cmd, v]) => `${v.cores.toFixed(1)} ${cmd.slice(0, 40)}${v.n > 1 ? ` (x${v.n})` : ''}`).join('; ')}`);
  }
}
