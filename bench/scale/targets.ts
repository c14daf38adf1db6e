/**
 * What `npm run bench:scale` loads on each setup: token issue (client credentials), introspection
 * of a fresh token, and full-text search over SciFact's first documents (ingested first through the
 * REST face) cycling through its test queries.
 */
import { loadSciFact } from '../shared/scifact';
import { scifactDir } from '../shared/datasets';
import { createObject, pool, search, searchPath, tokens, type Bootstrap } from '../shared/http-client';
import { progress } from '../shared/progress';
import { introspectTarget, tokenTarget } from '../token/targets';
import type { Target } from '../shared/load';
import type { PathsTarget } from '../search/load';

export type Endpoint = 'token issue' | 'introspection' | 'full-text search';
export const ENDPOINTS: Endpoint[] = ['token issue', 'introspection', 'full-text search'];

export const SUCCESS = '"status":"success"';

/** The corpus and the query paths, read once: `docs` documents of SciFact, its 300 test queries. */
export function corpus(docs: number) {
  const data = loadSciFact(scifactDir());
  return { docs: data.docs.slice(0, docs), paths: data.queries.map((q) => searchPath('fulltext', q.text, 20)) };
}
export type Corpus = ReturnType<typeof corpus>;

/** Ingests the corpus through `url` (concurrency 8); resolves with documents per second. */
export async function ingest(url: string, boot: Bootstrap, c: Corpus, label: string): Promise<number> {
  const tok = tokens(url, boot);
  const tick = progress(`${label}: ingest`, c.docs.length);
  const started = Date.now();
  await pool(c.docs, 8, async (d) => void (await createObject(url, tok, { title: d.title, content: d.text, ext_user_id_ref: d.id })), tick);
  return c.docs.length / ((Date.now() - started) / 1000);
}

export type Load = { kind: 'one'; target: Target } | { kind: 'paths'; target: PathsTarget };

/** The load of `endpoint` through `url`, checked once (a 200 with the expected body) before it is returned. */
export async function loadOf(endpoint: Endpoint, url: string, boot: Bootstrap, c: Corpus): Promise<Load> {
  if (endpoint === 'token issue') return { kind: 'one', target: { ...tokenTarget(url, boot), name: endpoint } };
  if (endpoint === 'introspection') return { kind: 'one', target: { ...(await introspectTarget(url, boot)), name: endpoint } };
  const tok = tokens(url, boot);
  const headers = await tok.headers();
  const first = await search(url, tok, c.paths[0]);
  if (!first.hits.length) throw new Error(`${url}: the first query found nothing: was the corpus ingested?`);
  return {
    kind: 'paths',
    target: { name: endpoint, baseUrl: url, method: 'POST', paths: c.paths, body: '{}', headers: () => headers, marker: SUCCESS },
  };
}
