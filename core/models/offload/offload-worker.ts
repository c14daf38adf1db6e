import { parentPort } from 'node:worker_threads';
import { runJob, type Job } from './offload-jobs';

/** A thread of offload.ts's pool: one job at a time, answered with its value or its error. */
parentPort?.on('message', (job: Job) => {
  try {
    parentPort!.postMessage({ value: runJob(job) });
  } catch (err) {
    parentPort!.postMessage({ error: (err as Error).message });
  }
});
