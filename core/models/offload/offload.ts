import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { RateLimited } from '../../shared/errors';
import { runJob, type JobName, type Jobs } from './offload-jobs';

/**
 * Where the work on long texts runs (offload-jobs.ts): small jobs where they are asked for (a few
 * milliseconds at most), large ones in a bounded pool of worker threads, so that one long prompt
 * never stops the process from answering everyone else.
 */
export interface Offload {
  /** Runs a job over `size` characters of text; a job still waiting when `signal` aborts is dropped. */
  run<K extends JobName>(name: K, args: Parameters<Jobs[K]>, size: number, signal?: AbortSignal): Promise<ReturnType<Jobs[K]>>;
  close(): Promise<void>;
}

/** Everything in the calling thread (the TypeScript sources under test, tools). */
export const inlineOffload = (): Offload => ({
  run: async (name, args) => runJob({ name, args }),
  close: async () => undefined,
});

export interface PoolOptions {
  /** The compiled offload-worker.js. */
  script: string;
  /** Worker threads, started when first needed (each loads the tokenizer's vocabulary: about half a second, some 65 MB). */
  threads: number;
  /** Jobs over at most this many characters run in the calling thread. */
  inlineChars: number;
  /** Jobs waiting for a thread beyond which another is refused (429, retry after a second). */
  maxWaiting: number;
}

interface Waiting {
  job: { name: JobName; args: unknown[] };
  resolve(v: unknown): void;
  reject(err: unknown): void;
  signal?: AbortSignal;
}

export function workerOffload(o: PoolOptions): Offload {
  const idle: Worker[] = [];
  const busy = new Map<Worker, Waiting>();
  const queue: Waiting[] = [];
  let closed = false;

  const spawn = () => {
    const w = new Worker(o.script);
    w.unref();
    w.on('message', (msg: { value?: unknown; error?: string }) => {
      const job = busy.get(w);
      busy.delete(w);
      idle.push(w);
      if (msg.error === undefined) job?.resolve(msg.value);
      else job?.reject(new Error(`offload worker: ${msg.error}`));
      next();
    });
    // A thread that dies fails its job; the next job starts another.
    w.on('error', (err) => {
      busy.get(w)?.reject(err);
      busy.delete(w);
      if (idle.includes(w)) idle.splice(idle.indexOf(w), 1);
      next();
    });
    return w;
  };
  function next() {
    while (queue.length && !closed) {
      const w = idle.pop() ?? (busy.size < o.threads ? spawn() : undefined);
      if (!w) return;
      const job = queue.shift()!;
      busy.set(w, job);
      w.postMessage(job.job);
    }
  }

  return {
    run(name, args, size, signal) {
      if (size <= o.inlineChars) return Promise.resolve(runJob({ name, args }));
      if (closed) return Promise.reject(new Error('the offload pool is closed'));
      if (queue.length >= o.maxWaiting) {
        return Promise.reject(
          new RateLimited('Too many long prompts are being read at once; retry shortly.', 1, { code: 'too_many_long_prompts' }),
        );
      }
      return new Promise((resolve, reject) => {
        const waiting: Waiting = { job: { name, args }, resolve: resolve, reject, signal };
        queue.push(waiting);
        // A caller that leaves while its job waits takes it out of the queue.
        signal?.addEventListener(
          'abort',
          () => {
            const at = queue.indexOf(waiting);
            if (at < 0) return;
            queue.splice(at, 1);
            reject(signal.reason);
          },
          { once: true },
        );
        next();
      });
    },
    async close() {
      closed = true;
      for (const q of queue.splice(0)) q.reject(new Error('the offload pool is closed'));
      await Promise.all([...idle, ...busy.keys()].map((w) => w.terminate()));
    },
  };
}

/**
 * The pool the services use: `threads` worker threads running the compiled offload-worker.js
 * beside this file, jobs of more than 8,192 characters sent to them, at most 64 waiting. With no
 * threads, or run from the TypeScript sources (tests; there is no compiled worker), inline.
 */
export function defaultOffload(threads: number): Offload {
  const script = join(__dirname, 'offload-worker.js');
  if (threads < 1 || !existsSync(script)) return inlineOffload();
  return workerOffload({ script, threads, inlineChars: 8192, maxWaiting: 64 });
}
