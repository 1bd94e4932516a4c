// KeyCache: proving keys loaded once and shared by every job of their circuit. A key's host bytes
// are reserved in the budget (pool 'pinned' when a GPU will read it, else 'host') before it is read;
// on a GPU its points and coefficients (the synthesis layout) are placed once per device by
// key-placement.ts's plan (reserved in 'gpu:N': the resident part and the staging rings; a streamed
// key's page-locked copy of its coefficients in the host pool) and stay there. Keys in use are never evicted; idle ones go
// least-recently-used first when the budget needs their memory (a reclaimer), after keyIdleMs when
// set, or on request. One file is one entry whatever its ids: a second id for a loaded file is
// another name of the same entry (the key read and held once), gone from the budget with its last.
import path from 'node:path';
import { CuzkError, InputError } from '../errors.js';
import { log, type Logger } from '../log.js';
import type { KeyDevicePlacement, KeyInfo, Residency } from './api.js';
import type { MemoryBudget, PoolName, Reservation } from './budget.js';
import { deviceScratchBytes, keyShape, placeKey, type KeyPlacement, type PlacementOptions } from './key-placement.js';
import { looksLikeKeyPath } from './key-ref.js';
import { ProvingKey } from './proving-key.js';

interface DeviceSlot {
  reservation?: Reservation;
  placement?: KeyPlacement;
  upload: Promise<void>;
}

const MiB = 2 ** 20;

export interface KeyEntry {
  readonly id: string;
  readonly path: string;
  key?: ProvingKey;
  loading?: Promise<ProvingKey>;
  hostReservation?: Reservation;
  readonly devices: Map<number, DeviceSlot>;
  users: number;
  loadedAt: number;
  lastUsedAt: number;
}

export class KeyCache {
  readonly #entries = new Map<string, KeyEntry>();
  readonly #budget: MemoryBudget;
  readonly #pinned: boolean;
  readonly #idleMs: number;
  readonly #log: Logger;
  readonly #placement: PlacementOptions;
  #timer: NodeJS.Timeout | undefined;

  constructor(budget: MemoryBudget, opts: { pinned: boolean; idleMs: number; log?: Logger; placement?: PlacementOptions }) {
    this.#budget = budget;
    this.#placement = opts.placement ?? {};
    this.#log = opts.log ?? log;
    this.#pinned = opts.pinned;
    this.#idleMs = opts.idleMs;
    budget.onPressure((want) => this.#reclaim(want));
    if (opts.idleMs > 0) {
      this.#timer = setInterval(() => this.evictIdle(this.#idleMs), Math.min(opts.idleMs, 10_000));
      this.#timer.unref();
    }
  }

  /** The entry for a key id, or for a .zkey path (registered under its resolved path). */
  resolve(idOrPath: string): KeyEntry {
    const byId = this.#entries.get(idOrPath);
    if (byId) return byId;
    if (!looksLikeKeyPath(idOrPath)) {
      throw new InputError('E_NOT_FOUND', `unknown key "${idOrPath}": load it first (LoadKey) or pass the path of a .zkey file`);
    }
    const abs = path.resolve(idOrPath);
    for (const e of this.#entries.values()) if (e.path === abs) return e; // loaded under another id
    return this.#register(abs, abs);
  }

  /** `e` while it is still this cache's entry for its id, else its id resolved again (evicted since). */
  current(e: KeyEntry): KeyEntry {
    return this.#unique().has(e) ? e : this.resolve(e.id);
  }

  register(zkeyPath: string, id?: string): KeyEntry {
    const abs = path.resolve(zkeyPath);
    const key = id ?? abs;
    const existing = this.#entries.get(key);
    if (existing) {
      if (existing.path !== abs) throw new InputError('E_INVALID_ARG', `key id "${key}" is already used for ${existing.path}`);
      return existing;
    }
    // the file under another id already: this id names that entry (N ids were N copies in the budget)
    for (const e of this.#entries.values()) if (e.path === abs) return (this.#entries.set(key, e), e);
    return this.#register(key, abs);
  }

  /** Whether `id` is one of `e`'s ids. */
  names(e: KeyEntry, id: string): boolean {
    return this.#entries.get(id) === e;
  }

  #register(id: string, abs: string): KeyEntry {
    const e: KeyEntry = { id, path: abs, devices: new Map(), users: 0, loadedAt: 0, lastUsedAt: Date.now() };
    this.#entries.set(id, e);
    return e;
  }

  /** Loads (once) and returns the host key; the caller must hold a use (acquire). */
  load(e: KeyEntry, signal?: AbortSignal): Promise<ProvingKey> {
    if (e.key) return Promise.resolve(e.key);
    e.loading ??= (async () => {
      try {
        const { bytes } = ProvingKey.inspect(e.path);
        const pool: PoolName = this.#pinned ? 'pinned' : 'host';
        e.hostReservation = await this.#budget.reserve({ [pool]: bytes }, `key ${e.path}`, signal);
        const t0 = performance.now();
        const key = await ProvingKey.load(e.path, { pinned: this.#pinned });
        e.key = key;
        e.loadedAt = Date.now();
        const t = key.timings;
        this.#log.info({ keyId: e.id, bytes, ms: Math.round(performance.now() - t0), pinned: this.#pinned, readMs: Math.round(t.readMs), pinMs: Math.round(t.pinMs), planMs: Math.round(t.planMs) }, 'key loaded');
        return key;
      } catch (err) {
        e.hostReservation?.release();
        e.hostReservation = undefined;
        throw err;
      } finally {
        e.loading = undefined;
      }
    })();
    return e.loading;
  }

  /** How `key` would be placed on GPU `device` under its budget beside one proof's scratch; undefined
   * when it cannot be (its proofs belong on another lane). */
  placement(key: ProvingKey, device: number): KeyPlacement | undefined {
    return placeKey(keyShape(key.header), this.#budget.status(`gpu:${device}`).limit, this.#placement);
  }

  /** Places the key's points and coefficients on GPU `device` (once; concurrent callers share the
   * upload): resident, or streamed from its host memory (placement()). E_DEVICE_OOM when it cannot be. */
  onDevice(e: KeyEntry, device: number, signal?: AbortSignal): Promise<void> {
    const have = e.devices.get(device);
    if (have) return have.upload;
    const key = e.key;
    if (!key) throw new CuzkError('E_INTERNAL', `key ${e.id} is not loaded`);
    const slot: DeviceSlot = { upload: Promise.resolve() };
    slot.upload = (async () => {
      const place = this.placement(key, device);
      if (!place) {
        const h = key.header;
        throw new CuzkError('E_DEVICE_OOM', `key ${e.id} does not fit gpu:${device}'s budget of ${this.#budget.status(`gpu:${device}`).limit} bytes, streamed or not (a proof's scratch alone is ${deviceScratchBytes(h.domainSize, h.nVars, h.n8q)} resident)`);
      }
      const hostPool: PoolName = this.#pinned ? 'pinned' : 'host';
      slot.reservation = await this.#budget.reserve(
        { [`gpu:${device}`]: place.deviceBytes, ...(place.hostBytes > 0 ? { [hostPool]: place.hostBytes } : {}) },
        `key ${e.id} on gpu:${device}`, signal);
      slot.placement = place;
      await key.native.gpuUpload(device, place);
      if (place.mode === 'streamed') {
        this.#log.info({
          keyId: e.id, device: `gpu:${device}`, streamed: place.streamed, residentBytes: place.residentBytes, keyBytes: place.keyBytes,
          stagingBytes: place.stagingBytes, scratchBytes: place.scratchBytes, chunkPoints: place.chunkPoints, chunkRecords: place.chunkRecords, chunks: place.chunks, hostBytes: place.hostBytes,
        }, `key ${e.id} streamed from pinned host memory on gpu:${device}: ${(place.residentBytes / MiB).toFixed(0)} of ${(place.keyBytes / MiB).toFixed(0)} MiB resident, chunks of ${place.chunkPoints} points (${place.chunks} a proof)`);
      }
    })();
    slot.upload.catch(() => {
      if (e.devices.get(device) === slot) e.devices.delete(device);
      slot.reservation?.release();
    });
    e.devices.set(device, slot);
    return slot.upload;
  }

  acquire(e: KeyEntry): void {
    e.users++;
    e.lastUsedAt = Date.now();
  }

  releaseUse(e: KeyEntry): void {
    e.users = Math.max(0, e.users - 1);
    e.lastUsedAt = Date.now();
  }

  /** Frees an idle key (host and devices); throws while jobs use it. */
  evict(id: string): void {
    const e = this.#entries.get(id);
    if (!e) throw new InputError('E_NOT_FOUND', `unknown key "${id}"`);
    if (e.users > 0) throw new InputError('E_INVALID_ARG', `key "${id}" is in use by ${e.users} job(s): cancel them or wait`);
    this.#entries.delete(id);
    if ([...this.#entries.values()].includes(e)) return; // its other ids keep it
    this.#unload(e);
  }

  evictIdle(idleMs: number): void {
    const now = Date.now();
    for (const e of this.#unique()) if (e.users === 0 && e.key && now - e.lastUsedAt >= idleMs) this.#unload(e);
  }

  /** `e` as KeyInfo under its id `id` (default its first). */
  info(e: KeyEntry, id = e.id): KeyInfo | undefined {
    const k = e.key;
    if (!k) return undefined;
    const placements: KeyDevicePlacement[] = [];
    for (const [d, slot] of e.devices) {
      const p = slot.placement;
      if (p) placements.push({ device: `gpu:${d}`, mode: p.mode, streamed: p.streamed, residentBytes: p.residentBytes, keyBytes: p.keyBytes, stagingBytes: p.stagingBytes, chunkPoints: p.chunkPoints, chunks: p.chunks, scratchBytes: p.scratchBytes });
    }
    const residency: Residency = e.devices.size === 0 ? (this.#pinned ? 'pinned' : 'host')
      : placements.some((p) => p.mode === 'streamed') ? 'gpu-streamed' : 'gpu';
    const h = k.header;
    return {
      id, path: e.path, curve: h.curve, nVars: h.nVars, nPublic: h.nPublic, domainSize: h.domainSize,
      bytes: k.bytes, residency, ...(placements.length ? { placements } : {}), users: e.users, loadedAt: e.loadedAt, lastUsedAt: e.lastUsedAt,
    };
  }

  list(): KeyInfo[] {
    return [...this.#entries].flatMap(([id, e]) => this.info(e, id) ?? []);
  }

  close(): void {
    if (this.#timer) clearInterval(this.#timer);
    for (const e of this.#unique()) this.#unload(e);
    this.#entries.clear();
  }

  /** Each entry once (one with several ids is in the map under each). */
  #unique(): Set<KeyEntry> {
    return new Set(this.#entries.values());
  }

  #unload(e: KeyEntry): void {
    for (const device of [...e.devices.keys()]) this.#dropDevice(e, device);
    if (e.key) this.#log.info({ keyId: e.id }, 'key evicted');
    e.key?.release();
    e.key = undefined;
    e.hostReservation?.release();
    e.hostReservation = undefined;
  }

  #dropDevice(e: KeyEntry, device: number): void {
    const slot = e.devices.get(device);
    e.devices.delete(device);
    try {
      e.key?.native.gpuEvict(device);
    } finally {
      slot?.reservation?.release();
    }
  }

  // Budget pressure: free idle keys, least recently used first, from the pools that are short (the
  // whole key for its host pool, its device copy for a GPU's pool), until the shortfall is freed.
  #reclaim(want: Partial<Record<PoolName, number>>): void {
    const hostPool: PoolName = this.#pinned ? 'pinned' : 'host';
    const idle = [...this.#unique()].filter((e) => e.users === 0 && e.key).sort((a, b) => a.lastUsedAt - b.lastUsedAt);
    const short = new Map(Object.entries(want).filter(([, b]) => (b ?? 0) > 0) as [PoolName, number][]);
    for (const e of idle) {
      if (short.size === 0) return; // freed enough: the other idle keys stay
      const need = short.get(hostPool);
      if (need !== undefined) {
        const freed = e.hostReservation?.held[hostPool] ?? 0;
        this.#unload(e);
        if (freed >= need) short.delete(hostPool);
        else short.set(hostPool, need - freed);
        continue;
      }
      for (const d of [...e.devices.keys()]) {
        const pool: PoolName = `gpu:${d}`;
        const n = short.get(pool);
        if (n === undefined) continue;
        const freed = e.devices.get(d)?.reservation?.held[pool] ?? 0;
        this.#dropDevice(e, d);
        if (freed >= n) short.delete(pool);
        else short.set(pool, n - freed);
      }
    }
  }
}
