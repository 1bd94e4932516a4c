// The dashboard's SSE feed alone, over fake responses: the first frame goes out at once, frames are
// built only while a page listens, and a page that stops reading is dropped (its buffer bounded)
// while the others go on.
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { createLogger } from '../../src/log.js';
import { DashboardFeed } from '../../src/server/transport/dashboard/feed.js';

class FakeResponse extends EventEmitter {
  chunks: string[] = [];
  destroyed = false;
  constructor(public writableLength = 0) {
    super();
  }
  write(chunk: string): boolean {
    this.chunks.push(chunk);
    return true;
  }
  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.emit('close');
  }
  frames(): number {
    return this.chunks.filter((c) => c.includes('event: frame')).length;
  }
}

const quiet = createLogger('silent');

/** Resolves once `cond` holds, checking after each macrotask. */
async function until(cond: () => boolean): Promise<void> {
  while (!cond()) await sleep(1);
}

describe('DashboardFeed', () => {
  it('sends a frame at once, then per tick; builds none once the last page has gone', async () => {
    let built = 0;
    const feed = new DashboardFeed(async () => ({ n: ++built }), quiet, 5);
    const page = new FakeResponse();
    feed.add(page);
    await until(() => page.frames() >= 3);
    assert.match(page.chunks[0]!, /^retry: \d+\n\n$/);
    assert.match(page.chunks[1]!, /^event: frame\ndata: \{"n":1\}\n\n$/);
    page.destroy();
    assert.equal(feed.listeners, 0);
    const after = built;
    // ten ticks' worth of timers: none may build a frame for nobody
    for (let i = 0; i < 10; i++) await sleep(5);
    assert.equal(built, after);
    feed.close();
  });

  it('drops a page that does not read (over 4 MiB buffered) and goes on with the others', async () => {
    const feed = new DashboardFeed(async () => ({ ok: true }), quiet, 5);
    const stalled = new FakeResponse(5 * 1024 * 1024);
    const reading = new FakeResponse();
    feed.add(stalled);
    feed.add(reading);
    await until(() => reading.frames() >= 3);
    assert.ok(stalled.destroyed, 'the stalled page is still fed');
    assert.equal(stalled.frames(), 0);
    assert.equal(feed.listeners, 1);
    feed.close();
    assert.ok(reading.destroyed, 'close() ends every stream');
  });

  it('a frame that fails is a problem event, and the feed goes on', async () => {
    let n = 0;
    const feed = new DashboardFeed(async () => {
      if (++n === 1) throw new Error('journal unavailable');
      return { n };
    }, quiet, 5);
    const page = new FakeResponse();
    feed.add(page);
    await until(() => page.frames() >= 1);
    assert.ok(page.chunks.some((c) => c === 'event: problem\ndata: {"message":"journal unavailable"}\n\n'), page.chunks.join('|'));
    feed.close();
  });
});
