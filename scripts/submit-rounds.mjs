// The submit loop of scripts/measure-submit.mjs, shared by its one-loop road and its worker threads
// (submit-worker.mjs): each round, every client submits `wtns` once, all at once; each submit's ms
// and job id come back (the job must be queued: the daemon's queue is paused).
export async function submitRounds(clients, protocol, key, wtns, rounds) {
  const times = [];
  const ids = [];
  const one = async (client) => {
    const t0 = performance.now();
    const { job } = await client.submit({ key, witnesses: [wtns] });
    if (job.state !== 'queued') throw new Error(`${protocol}: the job is ${job.state}`);
    ids.push(job.id);
    return performance.now() - t0;
  };
  for (let i = 0; i < rounds; i++) times.push(...(await Promise.all(clients.map(one))));
  return { times, ids };
}
