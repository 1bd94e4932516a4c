#!/usr/bin/env node
// One line per result for scripts/device-prep.sh (issue 32), from what cuzk wrote:
//   prove <label> <wall ms> <prove --json file> <its stderr file>   a one-shot's breakdown
//   bench <bench --json file>                                        a partitioned bench's GPU busy, in process and through the daemon
//   gaps <trace.json>                                                a trace's lanes: busy, idle by cause, the largest gaps
// Reads dist/ (the compiled report code), so `npm run build:ts` first.
import { readFileSync } from 'node:fs';

const [what, ...args] = process.argv.slice(2);
const ms = (x) => (x === undefined || x === null ? '-' : Number(x).toFixed(0));
const pct = (x) => (x === undefined || x === null ? '-' : `${(100 * x).toFixed(1)}%`);

if (what === 'prove') {
  const [label, wall, jsonFile, errFile] = args;
  const text = readFileSync(jsonFile, 'utf8').trim();
  const err = readFileSync(errFile, 'utf8');
  const native = err.split('\n').find((l) => l.startsWith('cuzk prove n=')) ?? '(no CUZK_TRACE_PROVE line)';
  let j;
  try {
    j = JSON.parse(text.split('\n').at(-1));
  } catch {
    console.log(`${label}: wall ${wall} ms, FAILED: ${err.trim().split('\n').at(-1)}`);
    process.exit(0);
  }
  const t = j.timings;
  const k = t.key;
  console.log(`${label}: wall ${wall} ms = node+modules ${ms(t.startAt)} + core ${ms(t.coreMs)} (open ${ms(t.core?.openMs)}, GPU probe ${ms(t.core?.probeMs)}) + key ${ms(k.totalMs)} (read ${ms(k.readMs)}, pin wait ${ms(k.pinMs)}, plan ${ms(k.planMs)})` +
    ` [witness in at ${ms(t.witnessAt)}, driver + GPU context (worker thread) ready at ${ms(t.warmAt)}] + upload ${ms(t.uploadMs)} + prove ${ms(t.proveMs)} + verify ${ms(t.verifyMs)}` +
    `; rest ${ms(Number(wall) - t.startAt - t.totalMs)}` + (j.after ? ` (key release ${ms(j.after.releaseMs)}, write ${ms(j.after.writeMs)}, process exit ${ms(Number(wall) - j.after.endAt)})` : ' (write, exit)'));
  console.log(`    native: ${native.replace(/^cuzk prove /, '')}`);
  const upload = err.split('\n').find((l) => l.startsWith('cuzk upload n='));
  if (upload) console.log(`    ${upload.replace(/^cuzk /, '')}`);
} else if (what === 'bench') {
  const j = JSON.parse(readFileSync(args[0], 'utf8'));
  const r = j.run;
  const line = (name, s, busy) => `  ${name.padEnd(12)} GPU busy ${pct(busy).padStart(6)}  ${s.proofsPerSec.toFixed(2)} proofs/s  job p50 ${ms(s.latencyMs.p50)} ms  completed ${s.completed}/${s.jobs}, failed ${s.failed}`;
  console.log(`  key 2^${Math.log2(r.key.domainSize)} (${r.key.nVars} wires) on ${r.lanes.join(', ')}: ${r.deviceMsPerProof.toFixed(1)} ms of ${r.deviceTime === 'gpu-kernels' ? 'GPU kernels' : 'lane busy time'} per proof`);
  console.log(line('in-process', r, r.gpuUtilisation));
  for (const p of ['grpc', 'connect']) {
    const s = j.daemon?.[p];
    if (s) console.log(`${line(`daemon ${p}`, s, s.gpuUtilisation)}  verified here ${s.verifiedHere}/${s.proofsReceived}`);
  }
  if (r.errors?.length) console.log(`  errors: ${r.errors.join('; ')}`);
} else if (what === 'gaps') {
  const { readTraceFile } = await import('../dist/src/report/trace-read.js');
  const { analyseTrace } = await import('../dist/src/report/analyse.js');
  const rep = analyseTrace(readTraceFile(args[0]));
  for (const l of rep.lanes) {
    const causes = Object.entries(l.idleByCause).map(([c, v]) => `${c} ${ms(v)}`).join(', ') || 'none';
    console.log(`  ${args[0].split('/').at(-1)} ${l.lane}: busy ${pct(l.utilisation)} of ${ms(rep.window.durMs)} ms; idle ${ms(l.idleMs)} ms in ${l.gaps} gaps (${causes})`);
  }
  const top = [...rep.gaps].sort((a, b) => b.dur - a.dur).slice(0, 5);
  console.log(`    largest: ${top.map((g) => `${ms(g.dur)} ms at ${((g.start - rep.window.start) / 1000).toFixed(2)} s (${g.cause})`).join(', ')}`);
} else {
  console.error('usage: prep-summary.mjs prove <label> <wall ms> <json> <stderr> | bench <json> | gaps <trace.json>');
  process.exit(2);
}
