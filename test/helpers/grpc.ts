// A plain gRPC client (@grpc/grpc-js with the .proto loaded by @grpc/proto-loader): no generated
// code and nothing of cuzk's, so the tests see the wire contract as any other gRPC user would.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

type Unary = (req: unknown, md: grpc.Metadata, cb: (err: grpc.ServiceError | null, res: any) => void) => void;
export interface PlainGrpc {
  call(method: string, req: unknown, token?: string): Promise<any>;
  stream(method: string, req: unknown): Promise<any[]>;
  close(): void;
}

export function plainGrpc(address: string, opts: { maxSendBytes?: number } = {}): PlainGrpc {
  const def = protoLoader.loadSync(path.join(root, 'proto', 'cuzk', 'v1', 'cuzk.proto'), { longs: String, enums: String, defaults: true, oneofs: true });
  const pkg = grpc.loadPackageDefinition(def) as any;
  const client = new pkg.cuzk.v1.ProvingService(address, grpc.credentials.createInsecure(), { 'grpc.max_send_message_length': opts.maxSendBytes ?? -1, 'grpc.max_receive_message_length': -1 });
  const md = (token?: string) => {
    const m = new grpc.Metadata();
    if (token) m.set('authorization', `Bearer ${token}`);
    return m;
  };
  return {
    call: (method, req, token) => new Promise((resolve, reject) => (client[method] as Unary).call(client, req, md(token), (err, res) => (err ? reject(err) : resolve(res)))),
    stream: (method, req) =>
      new Promise((resolve, reject) => {
        const out: any[] = [];
        const s = client[method](req);
        s.on('data', (d: any) => out.push(d));
        s.on('end', () => resolve(out));
        s.on('error', reject);
      }),
    close: () => client.close(),
  };
}
