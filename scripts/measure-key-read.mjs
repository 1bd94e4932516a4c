#!/usr/bin/env node
// Where a one-shot's key read goes (issue 32): ProvingKey.load of one zkey in a fresh process, in one
// of four modes, with its timings and the release after it. `beside`: GPU 0's driver start and
// context (cuzk_gpu_warm) run beside the load, as `cuzk prove` does; `warm-first`: the warm-up
// first, then the load; `unpinned`: no warm-up and no pin (the read and the checks alone);
// `unpinned-beside`: no pin, the warm-up beside. A mode whose load is much faster than `beside` names
// the contention (the driver's start against the read's page faults, or the pins against the reads).
// Usage (run from the repository root, dist/ built): node scripts/measure-key-read.mjs ZKEY MODE
import { performance } from 'node:perf_hooks';

const [zkey, mode = 'beside'] = process.argv.slice(2);
const { loadCore } = await import('../dist/src/ffi/load.js');
const { gpuWarmAsync } = await import('../dist/src/ffi/native.js');
const { ProvingKey } = await import('../dist/src/engine/proving-key.js');
const t0 = performance.now();
const core = loadCore(undefined, { deferGpuProbe: true });
const cuda = core.backend === 'cuda';
const ms = (t) => Math.round((t - t0) * 10) / 10;
let warmAt = -1;
const warm = () => gpuWarmAsync(0).then(() => void (warmAt = ms(performance.now())));
let warming;
if (cuda && mode === 'warm-first') await warm();
else if (cuda && (mode === 'beside' || mode === 'unpinned-beside')) warming = warm();
const pinned = cuda && (mode === 'beside' || mode === 'warm-first');
const t1 = performance.now();
const key = await ProvingKey.load(zkey, { pinned });
const t2 = performance.now();
await warming;
const t3 = performance.now();
key.release();
const t4 = performance.now();
const mb = key.bytes / 1e6;
console.log(JSON.stringify({ mode, backend: core.backend, mb: Math.round(mb), loadStartAt: ms(t1), loadMs: Math.round(t2 - t1), gbps: Math.round(mb / (t2 - t1) * 100) / 100, timings: Object.fromEntries(Object.entries(key.timings).map(([k, v]) => [k, Math.round(v * 10) / 10])), warmAt, releaseMs: Math.round(t4 - t3) }));
