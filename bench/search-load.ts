/**
 * A load run over many different requests: autocannon with one request whose path is taken, for
 * each request any connection sends, from the next of `paths` in turn (one shared counter), so
 * 50 connections cycle through the queries rather than repeating one. Same figures as load.ts.
 */
import autocannon from 'autocannon';
import type { Measured } from './load';

export interface PathsTarget {
  name: string;
  baseUrl: string;
  method: 'POST' | 'GET';
  paths: readonly string[];
  body?: string;
  /** Read for every request, so a caller may swap in a fresh access token during a long run. */
  headers?: () => Record<string, string>;
  /** A substring every good body contains; checked on every response. */
  marker: string;
}

let current: autocannon.Instance | undefined;

export const stopSearchLoad = (): void => current?.stop();

const percentile = (sorted: Float64Array, p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]! : Number.NaN;

export function loadPaths(t: PathsTarget, seconds: number, connections: number): Promise<Measured> {
  let latencies = new Float64Array(1 << 16);
  let n = 0;
  let next = 0;
  const request: autocannon.Request = {
    method: t.method,
    path: t.paths[0]!,
    body: t.body,
    headers: t.headers?.(),
    setupRequest: (req) => ({ ...req, path: t.paths[next++ % t.paths.length]!, headers: t.headers?.() ?? req.headers }),
  };
  return new Promise((resolve, reject) => {
    current = autocannon(
      {
        url: t.baseUrl,
        connections,
        pipelining: 1,
        duration: seconds,
        // A slow server (MiniSearch answers in seconds under 50 connections) is measured, not cut off at autocannon's 10 s.
        timeout: 60,
        requests: [request],
        verifyBody: (body) => String(body).includes(t.marker),
      },
      (err: unknown, r: autocannon.Result) => {
        current = undefined;
        if (err) return reject(err instanceof Error ? err : new Error(String(err)));
        const sorted = latencies.subarray(0, n).sort();
        const codes = Object.entries(r.statusCodeStats ?? {}).map(([code, s]) => `${code}:${s.count ?? 0}`).join(' ');
        resolve({
          name: t.name,
          rps: r.requests.average,
          requests: r.requests.total,
          p50: percentile(sorted, 0.5),
          p99: percentile(sorted, 0.99),
          non2xx: r.non2xx,
          errors: r.errors,
          badBodies: r.mismatches,
          codes,
        });
      },
    );
    current.on('response', (_client, status, _bytes, ms) => {
      if (status < 200 || status > 299) return;
      if (n === latencies.length) {
        const grown = new Float64Array(latencies.length * 2);
        grown.set(latencies);
        latencies = grown;
      }
      latencies[n++] = ms;
    });
  });
}
