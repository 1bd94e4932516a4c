// A whole file as one Uint8Array, read in parts: readFileSync refuses files over 2 GiB, and a 2^26-wire
// witness is 2 GiB + 76 bytes. One Uint8Array still bounds it (4 GiB on Node 20: E_LIMIT past that).
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { constants } from 'node:buffer';
import { CuzkError, InputError } from '../errors.js';

const PART_BYTES = 1 << 30;

/** `what` names the file in errors: E_NOT_FOUND if it cannot be opened or read, E_LIMIT past one Uint8Array. */
export function readFileBytes(file: string, what: string, partBytes = PART_BYTES): Uint8Array {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (cause) {
    throw new InputError('E_NOT_FOUND', `${file}: cannot read the ${what} file (${(cause as NodeJS.ErrnoException).code ?? cause})`, { cause });
  }
  try {
    const size = fstatSync(fd).size;
    if (size > constants.MAX_LENGTH) throw new CuzkError('E_LIMIT', `${file}: the ${what} file is ${size} bytes, more than one buffer holds (${constants.MAX_LENGTH})`);
    const out = new Uint8Array(size);
    for (let done = 0; done < size; ) {
      const n = readSync(fd, out, done, Math.min(partBytes, size - done), done);
      if (n === 0) throw new InputError('E_NOT_FOUND', `${file}: the ${what} file ended at ${done} of ${size} bytes while read`);
      done += n;
    }
    return out;
  } catch (cause) {
    if (cause instanceof CuzkError) throw cause;
    throw new InputError('E_NOT_FOUND', `${file}: cannot read the ${what} file (${(cause as NodeJS.ErrnoException).code ?? cause})`, { cause });
  } finally {
    closeSync(fd);
  }
}
