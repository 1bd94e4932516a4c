// `npm run bench -- key-load [--zkey PATH | --size LG] [--runs N | --fresh N] [--pinned on|off] [--upload on|off] [--compare-alloc]`:
// how long ProvingKey.load takes from the page cache, phase by phase (open and map, read with the
// point and record checks, pin in place, coefficient plan), with the loaded core (CUDA where a GPU
// is), then the points' upload to GPU 0 from the pinned sections. --size makes (once) a synthetic
// key of that size under .cache/bench (bench/synthetic-zkey.ts: 2^24 ≈ 9 GB, ~2^lg·540 bytes);
// --compare-alloc also times cudaHostAlloc of the same bytes (what a load paid before it pinned
// in place). The file is read once before the first run, so every run reads from the page cache.
// --runs loads N times in this process (memory freed by one load is recycled by the next: the first
// run is the one a daemon pays); --fresh N loads once per fresh process, N rounds alternating
// CUZK_HUGEPAGES=0 and =1, and summarises both. What it prints is appended to bench/RESULTS.md.
import { spawnSync } from 'node:child_process';
import { closeSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ProvingKey } from '../src/engine/proving-key.js';
import { loadCore } from '../src/ffi/load.js';
import { NativeBuffer } from '../src/ffi/native-buffer.js';
import { gpuCount } from '../src/ffi/native.js';
import { appendResults, commitOf } from './results.js';
import { syntheticZkey } from './synthetic-zkey.js';

function flag(args: string[], name: string): string | undefined {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
}

/** Sequential read of the whole file: afterwards it is in the page cache (as far as memory allows). */
function warmPageCache(file: string): number {
  const t0 = performance.now();
  const fd = openSync(file, 'r');
  const buf = new Uint8Array(16 << 20);
  try {
    for (let pos = 0, n = 1; n > 0; pos += n) n = readSync(fd, buf, 0, buf.length, pos);
  } finally {
    closeSync(fd);
  }
  return performance.now() - t0;
}

const ms = (x: number) => x.toFixed(0);
const said: string[] = [];
function say(line: string): void {
  console.log(line);
  said.push(line);
}
const gbs = (bytes: number, t: number) => (bytes / 1e6 / t).toFixed(1);

function thpSetting(): string {
  try {
    const v = (n: string) => /\[(\w+)\]/.exec(readFileSync(`/sys/kernel/mm/transparent_hugepage/${n}`, 'utf8'))?.[1] ?? '?';
    return `THP enabled=${v('enabled')} defrag=${v('defrag')}`;
  } catch {
    return 'THP ?';
  }
}

export async function benchKeyLoad(root: string, args: string[]): Promise<number> {
  const lg = flag(args, 'size');
  const zkey = flag(args, 'zkey') ?? (lg ? syntheticZkey(path.join(root, '.cache', 'bench'), Number(lg), console.error) : undefined);
  if (!zkey) {
    console.error('usage: npm run bench -- key-load (--zkey PATH | --size LG) [--runs N | --fresh N] [--pinned on|off] [--upload on|off] [--compare-alloc]');
    return 2;
  }
  const fresh = flag(args, 'fresh');
  if (fresh !== undefined) return freshRounds(root, zkey, Number(fresh), args);
  const runs = Number(flag(args, 'runs') ?? 3);
  const pinned = (flag(args, 'pinned') ?? 'on') !== 'off';
  const gpus = gpuCount();
  const upload = gpus > 0 && (flag(args, 'upload') ?? 'on') !== 'off';
  const fileBytes = statSync(zkey).size;
  const core = loadCore();
  say(`key-load: ${zkey} (${(fileBytes / 2 ** 30).toFixed(2)} GiB), backend ${core.backend}, ${gpus} GPU(s), ${os.cpus().length} cores, native threads ${core.abi.get_threads()}, ` +
    `pinned ${pinned ? 'on' : 'off'}, CUZK_HUGEPAGES=${process.env.CUZK_HUGEPAGES ?? '(unset: off)'}, ${thpSetting()}, ${Math.round(os.totalmem() / 2 ** 30)} GiB RAM`);
  if (!args.includes('--no-warm')) say(`page cache warm-up (one sequential read): ${ms(warmPageCache(zkey))} ms`);
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const key = await ProvingKey.load(zkey, { pinned });
    const wall = performance.now() - t0;
    const t = key.timings;
    let line = `run ${i + 1}: load ${ms(wall)} ms = ${gbs(key.bytes, wall)} GB/s (open+map ${ms(t.allocMs)}, read+check ${ms(t.readMs)} = ${gbs(key.bytes, t.readMs)} GB/s, pin ${ms(t.pinMs)}, plan ${ms(t.planMs)})`;
    if (upload) {
      const u0 = performance.now();
      await key.native.gpuUpload(0);
      const u = performance.now() - u0;
      line += `; upload to GPU 0 ${ms(u)} ms = ${gbs(key.native.gpuBytes, u)} GB/s`;
      key.native.gpuEvict(0);
    }
    const r0 = performance.now();
    key.release();
    say(`${line}; release ${ms(performance.now() - r0)} ms`);
  }
  if (args.includes('--compare-alloc')) await compareAlloc(zkey);
  if (!args.includes('--no-append')) record(root, args);
  return 0;
}

function record(root: string, args: string[]): void {
  const cpu = `${os.cpus().length} cores (${os.cpus()[0]?.model ?? '?'})`;
  appendResults(root, ['', `## ${new Date().toISOString().slice(0, 10)} key load: ${cpu}, commit ${commitOf(root)}`, '',
    `\`npm run bench -- key-load ${args.join(' ')}\`:`, '', ...said.map((l) => `- ${l}`), ''].join('\n'));
}

async function compareAlloc(zkey: string): Promise<void> {
  const { bytes } = ProvingKey.inspect(zkey);
  const part = 1 << 30; // one buffer holds at most 4 GiB: pin the same bytes in 1 GiB parts
  const t0 = performance.now();
  const held: NativeBuffer[] = [];
  try {
    for (let left = bytes; left > 0; left -= part) held.push(await NativeBuffer.allocAsync(Math.min(part, left), { pinned: true }));
  } finally {
    for (const b of held) b.release();
  }
  const a = performance.now() - t0;
  say(`for comparison: ${bytes} bytes of NativeBuffer.allocAsync(≤ 1 GiB, { pinned: true }) (cudaHostAlloc where a GPU is) ${ms(a)} ms with the frees`);
}

/** One load per fresh process, alternating CUZK_HUGEPAGES=0 / 1, then min / median of each. */
async function freshRounds(root: string, zkey: string, rounds: number, args: string[]): Promise<number> {
  say(`page cache warm-up (one sequential read): ${ms(warmPageCache(zkey))} ms`);
  const pass = ['pinned', 'upload'].flatMap((f) => (flag(args, f) ? [`--${f}`, flag(args, f)!] : []));
  const loads: Record<string, number[]> = { '0': [], '1': [] };
  for (let i = 0; i < rounds; i++) {
    for (const hp of i % 2 ? ['1', '0'] : ['0', '1']) {
      const r = spawnSync(process.execPath, [...process.execArgv, process.argv[1]!, 'key-load', '--zkey', zkey, '--runs', '1', '--no-warm', '--no-append', ...pass], {
        encoding: 'utf8', env: { ...process.env, CUZK_HUGEPAGES: hp, CUZK_LOG: process.env.CUZK_LOG ?? 'warn' }, maxBuffer: 1 << 24,
      });
      const line = r.stdout.split('\n').find((l) => l.startsWith('run 1:'));
      if (r.status !== 0 || !line) {
        console.error(`fresh load (CUZK_HUGEPAGES=${hp}) failed (exit ${r.status}): ${r.stderr}`);
        return 1;
      }
      say(`round ${i + 1}, CUZK_HUGEPAGES=${hp}: ${line.slice('run 1: '.length)}`);
      loads[hp]!.push(Number(/^run 1: load (\d+) ms/.exec(line)![1]));
    }
  }
  for (const [hp, xs] of Object.entries(loads)) {
    const s = [...xs].sort((a, b) => a - b);
    say(`CUZK_HUGEPAGES=${hp}: load min ${s[0]} ms, median ${s[s.length >> 1]} ms over ${s.length} fresh processes`);
  }
  if (args.includes('--compare-alloc')) await compareAlloc(zkey);
  record(root, args);
  return 0;
}
