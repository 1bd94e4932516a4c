// The body of an UploadWitness request as upload-grpc.ts parses it: bytes as the HTTP/2 stream
// delivers them (views of its DATA frames, never copied here), read from the stream's own 'data'
// events with the stream paused while QUEUE_BYTES wait, so what a slow spool holds back stays in
// the client's flow-control window, not in the daemon's memory.
import { InputError } from '../../errors.js';
import type { Req } from './upload-http.js';

export const malformed = (why: string) => new InputError('E_INVALID_ARG', `UploadWitness: request is not a valid stream of WitnessChunk messages (${why})`);

/** Bytes read from the source and not yet parsed, beyond which it is paused (its flow-control window
 * then holds the rest back): a little more than one 1 MiB message. */
export const QUEUE_BYTES = 2 << 20;

/** The request body as bytes: varints, small copies, and pieces handed on as they arrived. Fed by
 * the HTTP/2 stream's own 'data' events, not by the compat request's async iterator: that layer (a
 * second Readable re-pushing every DATA frame, two nextTicks and an iterator step per 16 KiB piece)
 * cost the daemon's main thread more than the rest of the upload, 1.6 against Connect's 1.2 ms per MiB. */
export class BodyReader {
  #buf: Uint8Array = new Uint8Array(0);
  readonly #queue: Uint8Array[] = [];
  #queued = 0;
  #ended = false;
  #failure: Error | undefined;
  #wake: (() => void) | undefined;
  readonly #onData = (b: Uint8Array) => {
    this.#queue.push(b);
    if ((this.#queued += b.length) >= QUEUE_BYTES) this.src.pause();
    this.#poke();
  };
  readonly #onEnd = () => {
    this.#ended = true;
    this.#poke();
  };
  readonly #onError = (err: Error) => {
    this.#failure ??= err;
    this.#poke();
  };
  readonly #onClose = () => {
    if (!this.#ended) this.#failure ??= new InputError('E_INVALID_ARG', 'UploadWitness: the stream closed before its body ended (the client reset it)');
    this.#poke();
  };

  constructor(private readonly src: NodeJS.ReadableStream) {
    src.on('data', this.#onData);
    src.on('end', this.#onEnd);
    src.on('error', this.#onError);
    src.on('close', this.#onClose); // a reset stream closes without 'end'
  }

  #poke(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  /** Stops reading (the body is parsed, or refused): nothing more is queued or held. The source stays
   * open, paused, for the answer (answerEarly resets it). */
  detach(): void {
    this.src.off('data', this.#onData);
    this.src.off('end', this.#onEnd);
    this.src.off('error', this.#onError);
    this.src.off('close', this.#onClose);
    this.src.pause();
    this.#ended = true;
    this.#queue.length = 0;
    this.#queued = 0;
    this.#buf = new Uint8Array(0);
  }

  /** False at the end of the body. */
  async more(): Promise<boolean> {
    if (this.#buf.length > 0) return true;
    while (this.#buf.length === 0) {
      const next = this.#queue.shift();
      if (next) {
        this.#buf = next;
        if ((this.#queued -= next.length) < QUEUE_BYTES && this.src.isPaused()) this.src.resume();
        continue;
      }
      if (this.#failure) throw this.#failure;
      if (this.#ended) return false;
      await new Promise<void>((resolve) => (this.#wake = resolve));
    }
    return true;
  }

  async byte(): Promise<number> {
    if (this.#buf.length === 0 && !(await this.more())) throw malformed('it ends inside a message');
    const b = this.#buf[0]!;
    this.#buf = this.#buf.subarray(1);
    return b;
  }

  /** A varint of at most 53 bits (sizes, lengths, tags), and how many bytes it took. */
  async varint(): Promise<[number, number]> {
    let v = 0;
    for (let i = 0, scale = 1; i < 8; i++, scale *= 128) {
      const b = await this.byte();
      v += (b & 0x7f) * scale;
      if (b < 0x80) return [v, i + 1];
    }
    throw malformed('a varint longer than 53 bits');
  }

  /** The next `n` bytes as one copy (small fields, a message's prefix). */
  async exact(n: number): Promise<Uint8Array> {
    const out = new Uint8Array(n);
    for (let o = 0; o < n; ) {
      if (this.#buf.length === 0 && !(await this.more())) throw malformed('it ends inside a message');
      const k = Math.min(n - o, this.#buf.length);
      out.set(this.#buf.subarray(0, k), o);
      this.#buf = this.#buf.subarray(k);
      o += k;
    }
    return out;
  }

  /** The next `n` bytes, piece by piece, each a view of what the socket delivered. */
  async pieces(n: number, each: (piece: Uint8Array) => Promise<void>): Promise<void> {
    for (let left = n; left > 0; ) {
      if (this.#buf.length === 0 && !(await this.more())) throw malformed('it ends inside a message');
      const piece = this.#buf.subarray(0, Math.min(left, this.#buf.length));
      this.#buf = this.#buf.subarray(piece.length);
      left -= piece.length;
      await each(piece);
    }
  }
}

/** The reader for a request: over HTTP/2 (gRPC's transport) its stream, from under the compat
 * request, which is never read; a gRPC request sent over HTTP/1.1, the request itself. */
export function requestBody(req: Req): BodyReader {
  return new BodyReader('stream' in req ? req.stream : req);
}
