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
