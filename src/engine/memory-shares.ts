// The memory budget's default limits as shares of the machine, written once: createEngine
// (create.ts), the daemon's preflight and options' help, and `cuzk doctor` read them. No imports, so
// the CLI's option table can load it cheaply.
/** Host and pinned of the machine's RAM, each GPU of its memory (the CUDA context and the driver need the rest). */
export const DEFAULT_SHARES = { host: 0.75, pinned: 0.5, gpu: 0.9 } as const;

/** `share` as "75%", for messages and help. */
export const percent = (share: number) => `${Math.round(share * 100)}%`;

/** One GPU's limit: `configured` bytes (capped at the card's memory), or its default share when 0. */
export function gpuLimitBytes(configured: number, memoryTotal: number): number {
  return configured > 0 ? Math.min(configured, memoryTotal) : Math.floor(DEFAULT_SHARES.gpu * memoryTotal);
}
