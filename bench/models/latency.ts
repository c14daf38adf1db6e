/**
 * One client, one keep-alive connection, requests in a row: the latency of each call and, for a
 * stream, its time to first byte. Their difference between the gateway and the direct upstream is
 * what the gateway adds to one call, with no queueing behind other callers.
 */
import { performance } from 'node:perf_hooks';
import { Client } from 'undici';

export interface Call {
  name: string;
  url: string;
  headers: Record<string, string>;
  body: string;
  /** A substring every good answer contains. */
  marker: string;
}

export interface Latency {
  name: string;
  /** Every call's times, ms (whole answer, first byte), to merge rounds. */
  whole: number[];
  first: number[];
  n: number;
  /** Whole answer, ms. */
  p50: number;
  p99: number;
  /** First byte of the body, ms. */
  ttfb50: number;
  ttfb99: number;
}

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? Number.NaN;

export async function oneClient(call: Call, n: number, warm: number): Promise<Latency> {
  const u = new URL(call.url);
  const client = new Client(u.origin, { pipelining: 1, keepAliveTimeout: 30_000 });
  const whole: number[] = [];
  const first: number[] = [];
  try {
    for (let i = 0; i < warm + n; i++) {
      const t0 = performance.now();
      const res = await client.request({ method: 'POST', path: u.pathname + u.search, headers: call.headers, body: call.body });
      let t1 = 0;
      let text = '';
      for await (const chunk of res.body) {
        t1 ||= performance.now();
        text += (chunk as Buffer).toString('utf8');
      }
      const t2 = performance.now();
      if (res.statusCode !== 200 || !text.includes(call.marker))
        throw new Error(`${call.name}: status ${res.statusCode}, body ${text.slice(0, 300)}`);
      if (i < warm) continue;
      whole.push(t2 - t0);
      first.push((t1 || t2) - t0);
    }
  } finally {
    await client.close();
  }
  return summary(call.name, whole, first);
}

function summary(name: string, whole: number[], first: number[]): Latency {
  const w = [...whole].sort((a, b) => a - b);
  const f = [...first].sort((a, b) => a - b);
  return { name, whole, first, n: w.length, p50: pct(w, 0.5), p99: pct(w, 0.99), ttfb50: pct(f, 0.5), ttfb99: pct(f, 0.99) };
}

/** The rounds of one way as one measurement. */
export const merged = (rounds: Latency[]): Latency =>
  summary(
    rounds[0].name,
    rounds.flatMap((r) => r.whole),
    rounds.flatMap((r) => r.first),
  );
