/**
 * SciFact (BEIR layout) for `npm run bench:search`, and the two measures it reports, computed as
 * BEIR's pytrec_eval does for binary qrels: nDCG@10 with gain 1 per relevant document discounted by
 * log2(rank + 1) and divided by the ideal DCG over all the query's relevant documents (capped at 10
 * ranks); recall@100 as the share of relevant documents in the first 100. A query without a
 * result scores 0 on both; only queries in qrels/test.tsv are evaluated.
 */
import { join } from 'node:path';
import { readDatasetText } from './datasets';

export interface Doc {
  id: string;
  title: string;
  text: string;
}

export interface Query {
  id: string;
  text: string;
  /** Ids of the documents judged relevant. */
  relevant: Set<string>;
}

export interface SciFact {
  docs: Doc[];
  /** The test queries, in queries.jsonl order. */
  queries: Query[];
}

const jsonLines = <T>(file: string): T[] =>
  readDatasetText(file)
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as T);

export function loadSciFact(dir: string): SciFact {
  const docs = jsonLines<{ _id: string; title: string; text: string }>(join(dir, 'corpus.jsonl')).map((d) => ({
    id: String(d._id),
    title: d.title,
    text: d.text,
  }));
  const qrels = new Map<string, Set<string>>();
  const [head, ...rows] = readDatasetText(join(dir, 'qrels', 'test.tsv'))
    .split('\n')
    .filter((l) => l.trim());
  if (!head?.startsWith('query-id')) throw new Error(`qrels/test.tsv: expected a 'query-id' header, got '${head}'`);
  for (const row of rows) {
    const [q, d, score] = row.split('\t');
    if (!q || !d || Number(score) <= 0) continue;
    if (!qrels.has(q)) qrels.set(q, new Set());
    qrels.get(q)!.add(d);
  }
  const queries = jsonLines<{ _id: string; text: string }>(join(dir, 'queries.jsonl'))
    .filter((q) => qrels.has(String(q._id)))
    .map((q) => ({ id: String(q._id), text: q.text, relevant: qrels.get(String(q._id))! }));
  if (queries.length !== qrels.size) throw new Error(`queries.jsonl lacks ${qrels.size - queries.length} of the test queries`);
  return { docs, queries };
}

/** The ranking with repeats removed (a document counts once, at its best rank). */
export function distinct(ranking: readonly string[]): string[] {
  return [...new Set(ranking)];
}

export function ndcgAt(k: number, ranking: readonly string[], relevant: Set<string>): number {
  let dcg = 0;
  distinct(ranking)
    .slice(0, k)
    .forEach((id, i) => {
      if (relevant.has(id)) dcg += 1 / Math.log2(i + 2);
    });
  let ideal = 0;
  for (let i = 0; i < Math.min(k, relevant.size); i++) ideal += 1 / Math.log2(i + 2);
  return ideal > 0 ? dcg / ideal : 0;
}

export function recallAt(k: number, ranking: readonly string[], relevant: Set<string>): number {
  if (!relevant.size) return 0;
  return (
    distinct(ranking)
      .slice(0, k)
      .filter((id) => relevant.has(id)).length / relevant.size
  );
}

export interface Quality {
  ndcg10: number;
  recall100: number;
}

/** Mean nDCG@10 and recall@100 over the queries, given each query's ranking of document ids. */
export function quality(queries: readonly Query[], rankings: readonly (readonly string[])[]): Quality {
  let ndcg = 0;
  let recall = 0;
  queries.forEach((q, i) => {
    ndcg += ndcgAt(10, rankings[i] ?? [], q.relevant);
    recall += recallAt(100, rankings[i] ?? [], q.relevant);
  });
  return { ndcg10: ndcg / queries.length, recall100: recall / queries.length };
}

/** Nearest-rank percentile (p in 0..1) of unsorted samples. */
export function percentile(samples: readonly number[], p: number): number {
  if (!samples.length) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
}
