/**
 * What the event-loop benches (`bench:long-prompt`, `bench:large-json`) share: `/healthz` probed one
 * request after another while a flood of requests goes, and the table row of what the probes saw.
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { send } from '../shared/http-client';

export interface Probes {
  /** Each probe's latency (until it failed, for a failed one). */
  ms: number[];
  /** Probes that got no 200: the server closed the connection, or answered another status. */
  failed: number;
}

export interface FloodCall {
  path: string;
  body: string;
  headers: Record<string, string>;
}

export const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;

/** Probes `/healthz` one after another (5 ms apart, each on a new connection) until `stop` resolves. */
export async function probe(url: string, stop: Promise<unknown>): Promise<Probes> {
  const out: Probes = { ms: [], failed: 0 };
  let done = false;
  void stop.finally(() => (done = true));
  while (!done) {
    const started = performance.now();
    const ok = await send('GET', `${url}/healthz`, undefined, {}, { timeoutMs: 600_000, fresh: true }).then(
      (r) => r.status === 200,
      () => false,
    );
    out.ms.push(performance.now() - started);
    if (!ok) out.failed++;
    await sleep(5);
  }
  return out;
}

/** `count` calls, `concurrency` at a time; the statuses seen (or the network error), counted. */
export async function flood(url: string, call: (i: number) => FloodCall, count: number, concurrency: number): Promise<Map<string, number>> {
  const statuses = new Map<string, number>();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const c = call(next++);
        const status = await send('POST', url + c.path, c.body, c.headers, { timeoutMs: 600_000, fresh: true }).then(
          (r) => String(r.status),
          (err: NodeJS.ErrnoException) => err.code ?? err.message,
        );
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
    }),
  );
  return statuses;
}

export const statusesOf = (m: Map<string, number>) => [...m].map(([s, n]) => `${n}×${s}`).join(' ');

/** p50, p99 and max of the probes, in ms with one decimal. */
export function summary(p: Probes): { n: number; failed: number; p50: string; p99: string; max: string } {
  const s = [...p.ms].sort((a, b) => a - b);
  return { n: s.length, failed: p.failed, p50: pct(s, 50).toFixed(1), p99: pct(s, 99).toFixed(1), max: (s.at(-1) ?? NaN).toFixed(1) };
}

/**
 * CPU time of a process's main thread (its event loop, garbage collection included), in ms, from
 * Linux's schedstat; undefined elsewhere. Per request, it is what a request costs everyone else,
 * whatever the machine's load (the probes' wall-clock figures grow with it).
 */
export function loopCpuMs(pid: number | undefined): number | undefined {
  try {
    return Number(readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
  } catch {
    return undefined;
  }
}
