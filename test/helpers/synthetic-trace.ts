// A trace with known idle gaps, written by the engine's own SpanRecorder (so it has the engine's
// exact format: tracks as named threads, the queue as async pairs). Times are ms from the origin.
// Three jobs on gpu:0: the lane idles 300 ms (530..830) while job B is in synthesis (280 ms) and
// then uploading (20 ms), and `queueHoleMs` (1030..) while nothing waits for a device until job C
// is submitted 60 ms before its kernels start (queue 10, synthesis 40, upload 10 of that).
import { SpanRecorder, type Span } from '../../src/engine/spans.js';

type Step = [Span['phase'], string, number, number, number?];

export function syntheticTrace(file: string, queueHoleMs: number): void {
  const rec = new SpanRecorder();
  const job = (id: string, steps: Step[]) => {
    for (const [phase, track, start, end, bytes] of steps) {
      rec.record({ phase, jobId: id, partition: phase === 'queue' ? -1 : 0, track, start: rec.origin + start, dur: end - start, ...(bytes ? { bytes } : {}) });
    }
  };
  job('job-a', [
    ['queue', 'queue', 0, 10], ['synthesis', 'synthesis', 10, 110], ['h2d', 'gpu:0:copy', 110, 130, 2e8],
    ['ntt', 'gpu:0', 130, 230], ['msm', 'gpu:0', 230, 530], ['finalize', 'finalize', 530, 540], ['verify', 'finalize', 540, 550],
  ]);
  job('job-b', [
    ['queue', 'queue', 20, 110], ['synthesis', 'synthesis', 110, 810], ['h2d', 'gpu:0:copy', 810, 830, 1e8],
    ['ntt', 'gpu:0', 830, 930], ['msm', 'gpu:0', 930, 1030], ['finalize', 'finalize', 1030, 1040], ['verify', 'finalize', 1040, 1050],
  ]);
  const c = 1030 + queueHoleMs - 60;
  job('job-c', [
    ['queue', 'queue', c, c + 10], ['synthesis', 'synthesis', c + 10, c + 50], ['h2d', 'gpu:0:copy', c + 50, c + 60, 1.5e8],
    ['ntt', 'gpu:0', c + 60, c + 160], ['msm', 'gpu:0', c + 160, c + 260], ['finalize', 'finalize', c + 260, c + 270], ['verify', 'finalize', c + 270, c + 280],
  ]);
  rec.writeTrace(file);
}
