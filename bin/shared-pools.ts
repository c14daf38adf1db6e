import { createFairPool, type FairPool, type FairPoolOptions } from '../core/shared/fair-pool';
import { RateLimited } from '../core/shared/errors';

/**
 * Fair pools shared by every worker of one machine. `WORKERS` processes each hashing "one at a
 * time" still hash W at once, and a flood spread over the workers then delays another address's
 * login by W hashes, each slower for sharing memory bandwidth (scrypt is memory-hard). So the
 * primary process keeps each named pool and hands out turns: a worker asks for a turn (its key,
 * the pool's options), runs the task itself when granted, and gives the turn back. A worker that
 * dies gives back every turn it held; a turn granted to a dead worker is given back at once.
 */

/** Messages between a worker and the primary (node's IPC channel, JSON). */
export type PoolMessage =
  | { fairPool: { op: 'acquire'; pool: string; opts: FairPoolOptions; id: number; key: string; priority?: number } }
  | { fairPool: { op: 'release'; id: number } }
  | { fairPool: { op: 'granted'; id: number } }
  | { fairPool: { op: 'refused'; id: number; message: string; retryAfterSeconds: number } };

/** One end of an IPC channel (a cluster worker's `process`, or the primary's `Worker`). */
export interface Channel {
  send(msg: PoolMessage): unknown;
  on(event: 'message', listener: (msg: unknown) => void): unknown;
}

const poolMessage = (msg: unknown) => (msg as Partial<PoolMessage> | null)?.fairPool;

/** The worker's side: named pools whose turns come from the primary, all over one channel. */
export function workerPools(channel: Channel): (name: string, opts: FairPoolOptions) => FairPool {
  let seq = 0;
  const pending = new Map<number, { granted: () => void; refused: (err: Error) => void }>();
  let running = 0;
  channel.on('message', (raw) => {
    const m = poolMessage(raw);
    if (!m || (m.op !== 'granted' && m.op !== 'refused')) return;
    const waiter = pending.get(m.id);
    pending.delete(m.id);
    if (m.op === 'granted') waiter?.granted();
    else waiter?.refused(new RateLimited(m.message, m.retryAfterSeconds, { code: 'slow_down' }));
  });
  return (name, opts) => ({
    async run<T>(key: string, task: () => Promise<T>, priority = 0): Promise<T> {
      const id = ++seq;
      await new Promise<void>((granted, refused) => {
        pending.set(id, { granted, refused });
        channel.send({ fairPool: { op: 'acquire', pool: name, opts, id, key, priority } });
      });
      running++;
      try {
        return await task();
      } finally {
        running--;
        channel.send({ fairPool: { op: 'release', id } });
      }
    },
    load: () => ({ running, waiting: pending.size }),
  });
}

/** The primary's side: one pool per name for every worker it serves. */
export function poolBroker() {
  const pools = new Map<string, FairPool>();
  return {
    /** Serves one worker's requests; `isDead` tells whether it is still there to take a turn. */
    serve(worker: Channel & { isDead(): boolean; once(event: 'exit', listener: () => void): unknown }) {
      const held = new Map<number, () => void>();
      worker.on('message', (raw) => {
        const m = poolMessage(raw);
        if (m?.op === 'release') {
          held.get(m.id)?.();
          held.delete(m.id);
        }
        if (m?.op !== 'acquire') return;
        let pool = pools.get(m.pool);
        if (!pool) pools.set(m.pool, (pool = createFairPool(m.opts)));
        pool
          .run(
            m.key,
            () =>
              new Promise<void>((release) => {
                if (worker.isDead()) return release();
                held.set(m.id, release);
                worker.send({ fairPool: { op: 'granted', id: m.id } });
              }),
            Number.isSafeInteger(m.priority) ? m.priority : 0,
          )
          .catch((err: unknown) => {
            const e = err instanceof RateLimited ? err : new RateLimited('Too much work in progress; try again later', 1);
            if (!worker.isDead())
              worker.send({ fairPool: { op: 'refused', id: m.id, message: e.message, retryAfterSeconds: e.retryAfterSeconds } });
          });
      });
      worker.once('exit', () => {
        for (const release of held.values()) release();
        held.clear();
      });
    },
    /** Turns running and waiting per pool (for tests). */
    load: (name: string) => pools.get(name)?.load() ?? { running: 0, waiting: 0 },
  };
}
