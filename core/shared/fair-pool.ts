import { RateLimited } from './errors';

/**
 * A fair pool for slow work (password hashes), keyed by caller address. Rules:
 * - at most `concurrency` tasks run at once, and at most `perKey` of one key, so one address can
 *   never hold the whole pool (nor libuv's threads, which also sign every token);
 * - a task has a priority (0 first): a free place goes to the most urgent waiting task, so work
 *   that is likely honest is never queued behind work that is likely an attack; with `crowded`, a
 *   key with more than one task in the pool (running or waiting) has its tasks served at that
 *   priority at best (one address asking for many hashes at once is not a person logging in);
 * - among tasks of the same priority, to the waiting key served least recently (a key that just
 *   started waiting first, in order of arrival): round-robin, so an address with a long queue
 *   delays another by at most one task of each other waiting address;
 * - at most `maxWaitingPerKey` tasks of one key wait; past that the key gets 429 at once.
 * One process's pool; bin/shared-pools.ts makes one pool of every worker of a machine.
 */
export interface FairPool {
  /** Runs `task` at its turn: `priority` 0 (the default) before 1 before 2, and so on. */
  run<T>(key: string, task: () => Promise<T>, priority?: number): Promise<T>;
  /** Tasks running and waiting now (for tests and figures). */
  load(): { running: number; waiting: number };
}

export interface FairPoolOptions {
  concurrency: number;
  perKey: number;
  maxWaitingPerKey?: number;
  /** The best priority of a key's tasks while it has more than one in the pool; none when absent. */
  crowded?: number;
}

interface Job {
  priority: number;
  task: () => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (reason: unknown) => void;
}

export function createFairPool(opts: FairPoolOptions): FairPool {
  const { concurrency, perKey } = opts;
  const maxWaiting = opts.maxWaitingPerKey ?? 256;
  if (!(concurrency >= 1 && perKey >= 1)) throw new Error('a fair pool needs concurrency and perKey of at least 1');
  /** Keys with waiting jobs, in order of arrival (a Map iterates in insertion order); each key's jobs by priority, then arrival. */
  const waiting = new Map<string, Job[]>();
  const running = new Map<string, number>();
  /** When each key with work running or waiting last got a place (absent: not yet). */
  const servedAt = new Map<string, number>();
  let active = 0;
  let queued = 0;
  let tick = 0;

  const nextKey = () => {
    let best: string | undefined;
    let bestPriority = Infinity;
    let bestAt = Infinity;
    for (const [key, jobs] of waiting) {
      if ((running.get(key) ?? 0) >= perKey) continue;
      const own = jobs[0].priority;
      const priority = opts.crowded !== undefined && jobs.length + (running.get(key) ?? 0) > 1 ? Math.max(own, opts.crowded) : own;
      const at = servedAt.get(key) ?? 0;
      if (priority < bestPriority || (priority === bestPriority && at < bestAt)) [best, bestPriority, bestAt] = [key, priority, at];
    }
    return best;
  };

  /** Behind the key's jobs of the same or a more urgent priority. */
  const enqueue = (jobs: Job[], job: Job) => {
    let i = jobs.length;
    while (i > 0 && jobs[i - 1].priority > job.priority) i--;
    jobs.splice(i, 0, job);
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
    run<T>(key: string, task: () => Promise<T>, priority = 0): Promise<T> {
      const jobs = waiting.get(key) ?? [];
      if (jobs.length >= maxWaiting) {
        return Promise.reject(
          new RateLimited('Too many authentications in progress from this address; try again later', 1, { code: 'slow_down' }),
        );
      }
      return new Promise<T>((resolve, reject) => {
        enqueue(jobs, { priority, task, resolve: resolve as (v: unknown) => void, reject });
        queued++;
        if (!waiting.has(key)) waiting.set(key, jobs);
        pump();
      });
    },
    load: () => ({ running: active, waiting: queued }),
  };
}
