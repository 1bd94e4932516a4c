// Which native library this process opened, if any, and whether its command asked to end without
// the CUDA runtime's teardown: kept apart from load.ts (which imports koffi) so that run.ts can ask
// at exit without loading koffi for a command that never used the core.
let build: 'cpu' | 'cuda' | undefined;
let quickExit = false;

/** Set by loadCore when it opens a library: the CPU build or the CUDA one (whatever proves with it). */
export function noteLibraryOpened(b: 'cpu' | 'cuda'): void {
  build = b;
}

/** The build of the native library this process opened, or undefined when it opened none. */
export function openedLibrary(): 'cpu' | 'cuda' | undefined {
  return build;
}

/** A one-shot command (`cuzk prove`) whose output is written: the process may end at once
 * (cuzk_exit_now), its GPU context, pins and memory left to the kernel. A daemon never asks. */
export function allowQuickExit(): void {
  quickExit = true;
}

export function quickExitAllowed(): boolean {
  return quickExit;
}

/** How a one-shot command's process ends once its output is written, on the CUDA build (CUZK_EXIT):
 * 'deferred' (the default: at once, the kernel's release of its memory, pins and GPU context after
 * the end, by a child holding them), 'now' (at once, that release before the end), 'normal' (exit
 * handlers and the CUDA runtime's teardown, as any Node.js process). */
export type ExitMode = 'deferred' | 'now' | 'normal';

export function exitMode(): ExitMode {
  const v = process.env.CUZK_EXIT;
  return v === 'now' || v === 'normal' ? v : 'deferred';
}

/** Whether this process, having opened the CUDA build, will end by cuzk_exit_now once its command
 * allows it: what it holds (a one-shot's key) is then left to the kernel rather than released. */
export function quickExitPlanned(): boolean {
  return openedLibrary() === 'cuda' && exitMode() !== 'normal';
}
