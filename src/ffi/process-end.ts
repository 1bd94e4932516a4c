// How the `cuzk` process ends once a CUDA build of the core is loaded: without the CUDA runtime's
// teardown (its context destroyed, its memory unregistered and freed after main returns: ~0.1 s after
// a one-shot proof, work the kernel does anyway when a process ends). Apart from load.ts so that the
// CLI's entry (src/cli/run.ts) can ask without loading koffi.

let quickExit: ((code: number) => void) | undefined;

/** load.ts: a CUDA build was loaded; `exit` ends the process at once (cuzk_quick_exit). */
export function cudaCoreLoaded(exit: (code: number) => void): void {
  quickExit = exit;
}

/**
 * For the `cuzk` process's last step, its output written: with a CUDA build loaded, an 'exit'
 * listener added now, after every other (they run first, in order), ends the process with
 * cuzk_quick_exit. CUZK_EXIT_TEARDOWN=1 keeps the full exit (a sanitizer's leak check, a comparison).
 */
export function skipTeardownAtExit(): void {
  const exit = quickExit;
  if (!exit || process.env.CUZK_EXIT_TEARDOWN === '1') return;
  process.once('exit', (code) => exit(code));
}
