// Sets of time as sorted, disjoint [start, end) intervals: the one representation the report's
// utilisation, bins and gap causes are computed on.
export type Interval = readonly [number, number];

/** Sorted, disjoint, non-empty intervals covering the same time as `xs`. */
export function union(xs: Iterable<Interval>): Interval[] {
  const sorted = [...xs].filter(([a, b]) => b > a).sort((p, q) => p[0] - q[0]);
  const out: [number, number][] = [];
  for (const [a, b] of sorted) {
    const last = out[out.length - 1];
    if (last && a <= last[1]) last[1] = Math.max(last[1], b);
    else out.push([a, b]);
  }
  return out;
}

export const total = (set: readonly Interval[]): number => set.reduce((s, [a, b]) => s + (b - a), 0);

/** The holes of `set` inside [from, to). */
export function complement(set: readonly Interval[], from: number, to: number): Interval[] {
  const out: Interval[] = [];
  let t = from;
  for (const [a, b] of set) {
    if (b <= t) continue;
    if (a >= to) break;
    if (a > t) out.push([t, a]);
    t = Math.max(t, b);
  }
  if (t < to) out.push([t, to]);
  return out;
}

/** Index of the first interval of `set` that ends after `t`. */
function firstEndingAfter(set: readonly Interval[], t: number): number {
  let lo = 0, hi = set.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (set[mid]![1] <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export function contains(set: readonly Interval[], t: number): boolean {
  const i = firstEndingAfter(set, t);
  return i < set.length && set[i]![0] <= t;
}

/** The ends of `set`'s intervals that fall strictly inside (from, to). */
export function boundariesWithin(set: readonly Interval[], from: number, to: number): number[] {
  const out: number[] = [];
  for (let i = firstEndingAfter(set, from); i < set.length && set[i]![0] < to; i++) {
    const [a, b] = set[i]!;
    if (a > from) out.push(a);
    if (b < to) out.push(b);
  }
  return out;
}

/** Busy fraction of each `binMs` bin from `from` on (the last bin's fraction is of its own length). */
export function binnedFraction(set: readonly Interval[], from: number, to: number, binMs: number): number[] {
  const n = Math.max(1, Math.ceil((to - from) / binMs));
  const busy = new Array<number>(n).fill(0);
  for (const [a, b] of set) {
    for (let k = Math.max(0, Math.floor((a - from) / binMs)); k < n; k++) {
      const lo = from + k * binMs;
      if (lo >= b) break;
      busy[k]! += Math.min(b, lo + binMs) - Math.max(a, lo);
    }
  }
  return busy.map((x, k) => x / (Math.min(to, from + (k + 1) * binMs) - (from + k * binMs)));
}

/** Nearest-rank quantile of an ascending array (q in (0, 1]). */
export function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/** A bin width of 1, 2 or 5 × 10^k that is at least `raw`. */
export function niceStep(raw: number): number {
  const p = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((m) => m * p).find((s) => s >= raw * (1 - 1e-9))!;
}
