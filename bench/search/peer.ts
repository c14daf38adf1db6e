/**
 * The peer of `npm run bench:search`: MiniSearch 7 with its defaults (the options below; `search`
 * with no search options), measured in process (quality and latency, no HTTP) and as a server
 * (bench/search/peer-server.ts) for the req/s comparison.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import MiniSearch from 'minisearch';
import { startChild, waitHealthy, type Child } from '../shared/procs';
import { percentile, quality, type Doc, type Quality, type Query } from '../shared/scifact';

export const peerIndex = () => new MiniSearch({ fields: ['title', 'text'], storeFields: ['title'] });

export function minisearchVersion(root: string): string {
  try {
    return (JSON.parse(readFileSync(join(root, 'node_modules', 'minisearch', 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown version';
  }
}

export interface PeerInProcess extends Quality {
  buildMs: number;
  p50: number;
  p99: number;
  /** One client, back to back: 1000 / mean ms. */
  qps: number;
}

/** Indexes the corpus, then runs every query once for quality and once more for latency. */
export function measurePeerInProcess(docs: readonly Doc[], queries: readonly Query[]): PeerInProcess {
  const started = performance.now();
  const index = peerIndex();
  index.addAll(docs.map((d) => ({ id: d.id, title: d.title, text: d.text })));
  const buildMs = performance.now() - started;
  const rankings = queries.map((q) =>
    index
      .search(q.text)
      .slice(0, 100)
      .map((h) => String(h.id)),
  );
  const times = queries.map((q) => {
    const t = performance.now();
    index.search(q.text);
    return performance.now() - t;
  });
  const mean = times.reduce((a, b) => a + b, 0) / times.length;
  return { ...quality(queries, rankings), buildMs, p50: percentile(times, 0.5), p99: percentile(times, 0.99), qps: 1000 / mean };
}

/** Starts the peer server with `workers` processes and waits until all have their index. */
export async function startPeerServer(
  root: string,
  port: number,
  corpus: string,
  workers: number,
  logFile: string,
): Promise<{ child: Child; url: string }> {
  const env = { ...process.env, PORT: String(port), PEER_CORPUS: corpus, PEER_WORKERS: String(workers) };
  const child = startChild('minisearch peer', [join(__dirname, 'peer-server.js')], { cwd: root, env, logFile });
  const url = `http://127.0.0.1:${port}`;
  await waitHealthy(`${url}/healthz`, child, 120_000);
  return { child, url };
}

export const peerPath = (query: string, pageSize: number) =>
  `/search?${new URLSearchParams({ query_string: query, page_no: '1', page_size: String(pageSize) })}`;
