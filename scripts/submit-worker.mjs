// One thread of scripts/measure-submit.mjs's clients: `workerData.clients` SDK clients of their own
// (their own event loop, as separate client processes would have), each submitting the witness at
// workerData.wtns once per round when the parent says go; posts back each submit's ms and the job ids.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { submitRounds } from './submit-rounds.mjs';

const { root, address, protocol, key, wtns: wtnsPath, clients, rounds } = workerData;
(await import('tsx/esm/api')).register(); // a worker does not inherit the parent's --import tsx hooks
const { CuzkClient } = await import(path.join(root, 'src/client/index.ts'));
const wtns = new Uint8Array(readFileSync(wtnsPath));
const cs = Array.from({ length: clients }, () => new CuzkClient({ address, protocol }));
parentPort.once('message', async () => parentPort.postMessage(await submitRounds(cs, protocol, key, wtns, rounds)));
parentPort.postMessage('ready');
