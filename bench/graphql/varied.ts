/**
 * The three-subgraph query of `npm run bench:graphql` with a different search word per request.
 * With one query sent by 50 connections, the gateways' in-flight deduplication (gateway/dedupe.ts,
 * Hive Gateway's own) runs search once for several callers, which real traffic seldom allows. Here
 * the search is a variable, as a client sends it, so every gateway plans the operation once and only
 * the search fetch differs; each run sends the same searches in the same order, whatever the target.
 */
import { join } from 'node:path';
import { STOPWORDS } from '../../core/shared/text/words';
import { readDatasetText, scifactDir } from '../shared/datasets';
import { measure, type Measured, type Target } from '../shared/load';

export const THREE_VARIED =
  'query Three($q: String!) { viewer { username realm { name } } search(query: $q) { totalCount hits { document { title } } } models { id contextLength } }';
export const SEARCH_VARIED = 'query Search($q: String!) { search(query: $q) { totalCount hits { document { title } } } }';

/** What the identical rows search for. */
export const TOPIC = 'aspirin';

/** The content words of SciFact's queries (four letters or more), each once, in the file's order. */
export function searchWords(dir = scifactDir()): string[] {
  const words = new Set<string>();
  for (const line of readDatasetText(join(dir, 'queries.jsonl')).split('\n')) {
    if (!line.trim()) continue;
    for (const w of (JSON.parse(line) as { text: string }).text.toLowerCase().match(/\p{L}{4,}/gu) ?? []) {
      if (!STOPWORDS.has(w)) words.add(w);
    }
  }
  words.delete(TOPIC);
  return [...words];
}

/**
 * `aspirin <word>` for each word: alone, nearly every word finds nothing among the bench's four
 * documents, a cheaper search than the identical rows' (which finds one), so the rows would differ
 * in two ways; with the topic each answer holds the same hit and only the requests differ.
 */
export const variedSearches = (dir = scifactDir()): string[] => searchWords(dir).map((w) => `${TOPIC} ${w}`);

/** One request body per search: `query` with `$q` bound to it. */
export const bodies = (query: string, searches: readonly string[]): string[] =>
  searches.map((q) => JSON.stringify({ query, variables: { q } }));

/** A target whose requests carry `bodies` in turn; its `body` (the first) is the one verify() sends. */
export interface VariedTarget extends Target {
  bodies: readonly string[];
}

/**
 * load() over `t.bodies`: every request any connection sends takes the next body (one counter for
 * all connections, from the first), so the requests in flight at once differ while there are more
 * bodies than connections. The bodies are encoded once, before the run, to keep the load's own CPU low.
 */
export function loadVaried(t: VariedTarget, seconds: number, connections: number): Promise<Measured> {
  const encoded = t.bodies.map((b) => Buffer.from(b));
  let next = 0;
  return measure(t.name, {
    url: t.url,
    connections,
    pipelining: 1,
    duration: seconds,
    requests: [
      {
        method: t.method,
        path: new URL(t.url).pathname,
        headers: t.headers,
        body: encoded[0],
        setupRequest: (req) => ({ ...req, body: encoded[next++ % encoded.length] }),
      },
    ],
    verifyBody: (body) => String(body).includes(t.marker),
  });
}
