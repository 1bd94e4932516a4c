// A worker thread of circuit-segments.ts: makes the segments it is asked for (their index) and posts them back,
// the buffers transferred, not copied.
import { parentPort, workerData } from 'node:worker_threads';
import { generateSegment, type CircuitSpec } from './gadgets.js';

const spec = workerData as CircuitSpec;
parentPort!.on('message', (k: number) => {
  const seg = generateSegment(spec, k);
  parentPort!.postMessage(seg, [seg.constraints.buffer as ArrayBuffer, seg.values.buffer as ArrayBuffer]);
});
