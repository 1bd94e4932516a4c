// Key uploads against a `cuzk serve` child's memory (issue #27 item 12): the SDK's loadKey({ zkey })
// streams the bytes (POST /v1/keys on its own connection), so 3 large uploads at once grow the
// daemon by far less than the bytes sent; an old client's LoadKey with the bytes in its message
// still loads, one such message held at a time. A .zkey's bytes after its last section are not
// read, so a test vector padded with zeros is a valid key of any size.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { createClient, type Client } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { CuzkClient } from '../../src/client/index.js';
import { ProvingService } from '../../src/rpc/gen/cuzk/v1/cuzk_pb.js';
import { removeDataDir, startDaemon, vectorDirArgs, type DaemonProcess } from '../helpers/daemon.js';
import { peakRss, rss } from '../helpers/proc-usage.js';
import { vectorFile, vectorSets } from '../helpers/vectors.js';

const pos = vectorSets().find((s) => s.curve === 'bn128' && s.circuit === 'poseidon')!;
const zkey = readFileSync(vectorFile(pos, 'circuit.zkey'));
const wtns = readFileSync(vectorFile(pos, 'witness.wtns'));
const MiB = 1024 * 1024;
const PAD = 96 * MiB;
const LIMIT = { timeout: 60_000 };

/** A distinct valid key of about `pad` bytes (a sha256 of its own: a file of its own on the daemon). */
const bigKey = (tag: string, pad = PAD) => Buffer.concat([zkey, Buffer.from(`${tag} ${process.pid}`), Buffer.alloc(pad)]);

/** The daemon's peak RSS growth while 3 uploads of PAD bytes run at once through `upload`, after a
 * round of 3 small ones the same way (its threads, heap and connections warmed: their growth is
 * not the uploads'), each in a daemon of its own (what one test's buffers left is not the next's). */
async function growthOf3(upload: (d: DaemonProcess, i: number, key: Buffer, id: string) => Promise<{ id: string }>): Promise<{ grown: number; d: DaemonProcess }> {
  const d = await startDaemon({ args: vectorDirArgs() });
  daemons.push(d);
  const pid = d.proc.pid!;
  await Promise.all([0, 1, 2].map((i) => upload(d, i, bigKey(`warm ${i}`, 4 * MiB), `warm-${i}`)));
  const keys = [0, 1, 2].map((i) => bigKey(`big ${i}`));
  const base = rss(pid);
  const { peak, result } = await peakRss(pid, Promise.all(keys.map((k, i) => upload(d, i, k, `big-${i}`))));
  assert.deepEqual(result.map((k) => k.id), ['big-0', 'big-1', 'big-2']);
  return { grown: peak - base, d };
}

const daemons: DaemonProcess[] = [];

describe('cuzk serve: large key uploads are not held whole', () => {
  after(async () => {
    for (const d of daemons) {
      assert.equal(await d.stop(), 0, d.logs());
      removeDataDir(d.dataDir);
    }
  });

  for (const protocol of ['grpc', 'connect'] as const) {
    it(`3 SDK uploads of ${PAD / MiB} MiB at once (${protocol}) grow the daemon by well under the bytes sent, and prove`, LIMIT, async () => {
      const clients: CuzkClient[] = [];
      const client = (d: DaemonProcess, i: number) => (clients[i] ??= new CuzkClient({ address: d.address, protocol }));
      try {
        const { grown, d } = await growthOf3((d, i, key, id) => client(d, i).loadKey({ zkey: key }, id));
        // held whole, each upload is at least its size in the daemon (the RPC library held it twice)
        assert.ok(grown < PAD, `the daemon grew ${Math.round(grown / MiB)} MiB at its peak for ${(3 * PAD) / MiB} MiB of keys sent`);
        assert.equal((await client(d, 1).prove({ key: 'big-1', witnesses: [wtns] })).state, 'completed');
      } finally {
        for (const c of clients) c.close();
      }
    });
  }

  it('an old client\'s LoadKey with the bytes in its message still loads, the messages held one at a time', LIMIT, async () => {
    const rpcs: Client<typeof ProvingService>[] = [];
    const rpc = (d: DaemonProcess, i: number) => (rpcs[i] ??= createClient(ProvingService, createGrpcTransport({ baseUrl: d.url, readMaxBytes: 256 * MiB, writeMaxBytes: 256 * MiB })));
    const { grown, d } = await growthOf3((d, i, key, id) => rpc(d, i).loadKey({ source: { case: 'zkey', value: key }, id }));
    // one message decoded at a time: its read chunks and the decoded copy, about twice its size
    assert.ok(grown < 3 * PAD, `the daemon grew ${Math.round(grown / MiB)} MiB at its peak for 3 LoadKey messages of ${PAD / MiB} MiB`);
    const c = new CuzkClient({ address: d.address });
    assert.equal((await c.prove({ key: 'big-2', witnesses: [wtns] })).state, 'completed');
    c.close();
  });
});
