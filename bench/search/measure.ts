/**
 * Measurements through the platform's REST face that both search benches make: ingest at a fixed
 * concurrency, rankings for evaluation (with checks on what each page looks like), one-client
 * latency, and an autocannon run over many queries after a warm-up.
 */
import { treeCpuSeconds } from '../shared/cpu';
import type { Measured } from '../shared/load';
import { problems } from '../shared/report';
import { createObject, pool, search, searchPath, type Mode, type Tokens } from '../shared/http-client';
import { loadPaths, type PathsTarget } from './load';
import { progress } from '../shared/progress';

export async function ingest<T>(label: string, items: readonly T[], concurrency: number, post: (item: T) => Promise<void>) {
  const tick = progress(label, items.length);
  const started = Date.now();
  await pool(items, concurrency, post, (n) => tick(n));
  const seconds = (Date.now() - started) / 1000;
  return { seconds, perSecond: items.length / seconds };
}

export const ingestObject = (url: string, tok: Tokens) => async (body: Record<string, unknown>) =>
  void (await createObject(url, tok, body));

export interface Ranked {
  /** Per query, the ext_user_id_ref of each hit in order. */
  rankings: string[][];
  times: number[];
  /** Anything in the pages that looks wrong (counts per kind). */
  oddities: string[];
}

/** Runs each query once, one at a time, and checks the pages as it goes. */
export async function rankAll(
  url: string,
  tok: Tokens,
  mode: Mode,
  queries: readonly string[],
  pageSize: number,
  minScore?: number,
): Promise<Ranked> {
  const odd = new Map<string, number>();
  const note = (what: string) => odd.set(what, (odd.get(what) ?? 0) + 1);
  const rankings: string[][] = [];
  const times: number[] = [];
  const tick = progress(`${mode} (page_size ${pageSize})`, queries.length);
  for (const q of queries) {
    const { hits, count, ms } = await search(url, tok, searchPath(mode, q, pageSize, minScore));
    times.push(ms);
    if (hits.length > pageSize) note('pages longer than page_size');
    if (Number.isFinite(count) && count < hits.length) note('result_count below the number of hits returned');
    if (!Number.isFinite(count)) note('result_count missing');
    if (!hits.length) note('queries with no result');
    const refs = hits.map((h) => String(h.ext_user_id_ref ?? ''));
    if (refs.some((r) => !r)) note('hits without ext_user_id_ref');
    if (new Set(refs).size !== refs.length) note('pages listing a document twice');
    if (hits.some((h) => typeof h.score !== 'number' || !(h.score >= 0 && h.score <= 1))) note('pages with a score outside [0, 1]');
    if (hits.some((h, i) => i > 0 && h.score > hits[i - 1].score + 1e-9)) note('pages not sorted by score');
    rankings.push(refs);
    tick(rankings.length);
  }
  return { rankings, times, oddities: [...odd].map(([what, n]) => `${mode}: ${what}: ${n}`) };
}

/** Sequential requests of `paths` on one keep-alive connection; returns each latency in ms. */
export async function oneClient(url: string, tok: Tokens, paths: readonly string[]): Promise<number[]> {
  const times: number[] = [];
  for (const p of paths) times.push((await search(url, tok, p)).ms);
  return times;
}

export interface LoadSettings {
  seconds: number;
  warmup: number;
  connections: number;
}

/**
 * A warm-up (discarded), then the measured run, with the CPU the server's processes spent per
 * answer (independent of what else this shared machine runs). `headers` is asked again every 30 s
 * (tokens() replaces a token older than 240 s), so a run longer than a token's 300 s keeps a valid
 * one. Failures (non-2xx, errors, bodies without the marker) of either run go to `failures`.
 */
export async function measureLoad(
  name: string,
  baseUrl: string,
  paths: readonly string[],
  headers: () => Promise<Record<string, string>>,
  marker: string,
  s: LoadSettings,
  failures: string[],
  serverPid?: number,
): Promise<Measured> {
  let current = await headers();
  const refresh = setInterval(
    () =>
      void headers().then(
        (h) => (current = h),
        () => undefined,
      ),
    30_000,
  );
  const target = { name, baseUrl, method: 'POST' as const, paths, body: '{}', headers: () => current, marker };
  try {
    if (s.warmup > 0) {
      const bad = problems(await loadPaths(target, s.warmup, s.connections));
      if (bad) failures.push(`warm-up ${bad}`);
    }
    process.stderr.write(`running ${name} (${s.seconds} s, ${s.connections} connections)...\n`);
    return await measured(target, s, failures, serverPid);
  } finally {
    clearInterval(refresh);
  }
}

async function measured(target: PathsTarget, s: LoadSettings, failures: string[], serverPid?: number): Promise<Measured> {
  const before = treeCpuSeconds(serverPid);
  const m = await loadPaths(target, s.seconds, s.connections);
  const after = treeCpuSeconds(serverPid);
  if (before !== undefined && after !== undefined && m.requests > 0) m.cpuMs = ((after - before) * 1000) / m.requests;
  const bad = problems(m);
  if (bad) failures.push(bad);
  process.stderr.write(`  ${m.requests} responses, status codes ${m.codes || 'none'}, ${m.errors} connection errors\n`);
  return m;
}
