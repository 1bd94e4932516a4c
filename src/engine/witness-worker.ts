// Worker thread body for WitnessPool: computes one witness per message with circom's wasm and
// posts the .wtns image back (transferred, not copied), or the error's code and message.
import { parentPort } from 'node:worker_threads';
import { CuzkError, errorMessage } from '../errors.js';
import { computeWitness } from './witness.js';

interface Task {
  id: number;
  wasm: string;
  input: unknown;
  name: string;
}

parentPort?.on('message', (t: Task) => {
  computeWitness(t.wasm, t.input, t.name).then(
    (wtns) => {
      const copy = wtns.byteOffset === 0 && wtns.byteLength === wtns.buffer.byteLength ? wtns : wtns.slice();
      parentPort!.postMessage({ id: t.id, wtns: copy }, [copy.buffer as ArrayBuffer]);
    },
    (e: unknown) => {
      const code = e instanceof CuzkError ? e.code : 'E_INTERNAL';
      parentPort!.postMessage({ id: t.id, error: { code, message: errorMessage(e) } });
    },
  );
});
