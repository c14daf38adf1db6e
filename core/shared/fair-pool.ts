import { RateLimited } from './errors';

/**
 * A fair pool for slow work (password hashes), keyed by caller address. Rules:
 * - at most `concurrency` tasks run at once, and at most `perKey` of one key, so one address can
 *   never hold the whole pool (nor libuv's threads, which also sign every token);
 * - a free place goes to the waiting key served least recently (a key that just started waiting
 *   first, in order of arrival): round-robin, so an address with a long queue delays another by
 *   at most one task of each other waiting address (one hash's time when a single address floods);
 * - at most `maxWaitingPerKey` tasks of one key wait; past that the key gets 429 at once.
 * One process's pool; bin/shared-pools.ts makes one pool of every worker of a machine.
 */
export interface FairPool {
  run<T>(key: string, task: () => Promise<T>): Promise<T>;
  /** Tasks running and waiting now (for tests and figures). */
  load(): { running: number; waiting: number };
}

export interface FairPoolOptions {
  concurrency: number;
  perKey: number;
  maxWaitingPerKey?: number;
}

interface Job {
  task: () => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (reason: unknown) => void;
}

export function createFairPool(opts: FairPoolOptions): FairPool {
  const { concurrency, perKey } = opts;
  const maxWaiting = opts.maxWaitingPerKey ?? 256;
  if (!(concurrency >= 1 && perKey >= 1)) throw new Error('a fair pool needs concurrency and perKey of at least 1');
  /** Keys with waiting jobs, in order of arrival (a Map iterates in insertion order). */
  const waiting = new Map<string, Job[]>();
  const running = new Map<string, number>();
  /** When each key with work running or waiting last got a place (absent: not yet). */
  const servedAt = new Map<string, number>();
  let active = 0;
  let queued = 0;
  let tick = 0;

  const nextKey = () => {
    let best: string | undefined;
    let bestAt = Infinity;
    for (const key of waiting.keys()) {
      const at = servedAt.get(key) ?? 0;
      if (at < bestAt && (running.get(key) ?? 0) < perKey) [best, bestAt] = [key, at];
    }
    return best;
  };

  function finish(key: string) {
    active--;
    const n = running.get(key)! - 1;
    if (n > 0) running.set(key, n);
    else running.delete(key);
    if (n === 0 && !waiting.has(key)) servedAt.delete(key);
    pump();
  }

  function start(key: string, job: Job) {
    active++;
    running.set(key, (running.get(key) ?? 0) + 1);
    let done: Promise<unknown>;
    try {
      // Started synchronously, so work it publishes (a single flight) is visible at once.
      done = Promise.resolve(job.task());
    } catch (err) {
      done = Promise.reject(err);
    }
    done.then(job.resolve, job.reject).finally(() => finish(key));
  }

  function pump() {
    while (active < concurrency) {
      const key = nextKey();
      if (key === undefined) return;
      const jobs = waiting.get(key)!;
      const job = jobs.shift()!;
      queued--;
      servedAt.set(key, ++tick);
      if (!jobs.length) waiting.delete(key);
      start(key, job);
    }
  }

  return {
    run<T>(key: string, task: () => Promise<T>): Promise<T> {
      const jobs = waiting.get(key) ?? [];
      if (jobs.length >= maxWaiting) {
        return Promise.reject(new RateLimited('Too many authentications in progress from this address; try again later', 1, { code: 'slow_down' }));
      }
      return new Promise<T>((resolve, reject) => {
        jobs.push({ task, resolve: resolve as (v: unknown) => void, reject });
        queued++;
        if (!waiting.has(key)) waiting.set(key, jobs);
        pump();
      });
    },
    load: () => ({ running: active, waiting: queued }),
  };
}
