/** One load run with autocannon, plus the single checked request that precedes it. */
import autocannon from 'autocannon';

export interface Target {
  name: string;
  method: 'GET' | 'POST';
  url: string;
  body?: string;
  headers?: Record<string, string>;
  /** True when the parsed JSON body of a 200 shows the request really did what it should. */
  check: (json: unknown) => boolean;
  /** A substring every good body contains; checked on every response during the run. */
  marker: string;
}

export interface Measured {
  name: string;
  /** Mean of autocannon's per-second samples of completed requests. */
  rps: number;
  requests: number;
  /** Exact percentiles (nearest rank) of the 2xx response times, in ms. */
  p50: number;
  p99: number;
  non2xx: number;
  /** Connection errors and timeouts. */
  errors: number;
  /** Responses whose body lacked the marker. */
  badBodies: number;
  /** e.g. "200:5000 429:12" */
  codes: string;
  /** CPU milliseconds the server (all its processes and threads) spent per response, when measurable. */
  cpuMs?: number;
}

/** Sends the request once and throws unless it answers 200 with a body that passes `check`. */
export async function verify(t: Target): Promise<void> {
  const res = await fetch(t.url, { method: t.method, body: t.body, headers: t.headers, signal: AbortSignal.timeout(10_000) }).catch(
    (err: Error & { cause?: Error }) => {
      throw new Error(`${t.name}: the check request failed: ${err.cause?.message ?? err.message}`);
    },
  );
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  if (res.status !== 200 || !t.check(json) || !text.includes(t.marker)) {
    throw new Error(`${t.name}: the check request failed: status ${res.status}, body ${text.slice(0, 300)}`);
  }
}

const percentile = (sorted: Float64Array, p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] : Number.NaN;

let current: autocannon.Instance | undefined;

/** Stops a run in progress (Ctrl-C). */
export const stopLoad = (): void => current?.stop();

export function load(t: Target, seconds: number, connections: number): Promise<Measured> {
  return measure(t.name, {
    url: t.url,
    method: t.method,
    body: t.body,
    headers: t.headers,
    connections,
    pipelining: 1,
    duration: seconds,
    verifyBody: (body) => String(body).includes(t.marker),
  });
}

/**
 * One autocannon run with `opts` (a single one at a time: stopLoad stops it), recording the exact
 * response time of every 2xx for percentiles; what every load run of the benchmarks reports.
 */
export function measure(name: string, opts: autocannon.Options): Promise<Measured> {
  let latencies = new Float64Array(1 << 16);
  let n = 0;
  return new Promise((resolve, reject) => {
    // autocannon calls back as Node does: an Error or nothing.
    current = autocannon(opts, (err: Error | null, r: autocannon.Result) => {
      current = undefined;
      if (err) return reject(err);
      const sorted = latencies.subarray(0, n).sort();
      const codes = Object.entries(r.statusCodeStats ?? {})
        .map(([code, s]) => `${code}:${s.count ?? 0}`)
        .join(' ');
      resolve({
        name,
        rps: r.requests.average,
        requests: r.requests.total,
        p50: percentile(sorted, 0.5),
        p99: percentile(sorted, 0.99),
        non2xx: r.non2xx,
        errors: r.errors,
        badBodies: r.mismatches,
        codes,
      });
    });
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
