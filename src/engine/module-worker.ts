// A worker thread running one of our modules: from dist the compiled .js; from the sources (tests
// and benches run through tsx) the .ts file, loaded after registering tsx's loader in that thread.
import { Worker, type WorkerOptions } from 'node:worker_threads';

/** `name` without extension, beside the module whose import.meta.url is `base`. */
export function startModuleWorker(base: string, name: string, opts: Pick<WorkerOptions, 'workerData'> = {}): Worker {
  const fromSource = base.endsWith('.ts');
  const url = new URL(`./${name}.${fromSource ? 'ts' : 'js'}`, base);
  if (!fromSource) return new Worker(url, opts);
  const boot = `import('tsx/esm/api').then((t) => { t.register(); return import(${JSON.stringify(url.href)}); });`;
  return new Worker(boot, { ...opts, eval: true, execArgv: [] });
}
