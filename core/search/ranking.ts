import type { Embedder } from '../shared/text/embedder';
import { reciprocalRankFusion, RRF_K, type Reranker } from './fusion';
import type { LexicalSearch } from './lexical';
import type { Match, Selection } from './ports';
import type { SearchIndex } from './search-index';
import type { VectorSearch } from './semantic';
import { textQuery } from './text-query';
import type { PassageRequest, SearchRequest } from './types';

/**
 * Ranking for each search mode: the ordered match set with scores in [0, 1] (DECISIONS).
 * - full text: BM25 of the best passage, divided by the best object's (the top hit scores 1);
 * - semantic: cosine similarity of the best passage as (1 + cos) / 2, as Elasticsearch scores
 *   cosine, so 0.5 (the default `min_relevant_score`) means "not dissimilar";
 * - basic: BM25 over title, file name and tags (and passages with `is_anywhere`), relative to the
 *   best; a listing without words scores 1 throughout;
 * - hybrid: reciprocal rank fusion of both lists, optionally re-ranked, relative to the best.
 */
export interface Scored {
  seq: number;
  score: number;
  chunkId: number | null;
}

export interface RankingDeps {
  index: SearchIndex;
  lexical: LexicalSearch;
  vectors: VectorSearch;
  embedder: Embedder;
  reranker: Reranker;
  /** Weight of the re-ranker's score against the fused rank (0..1). */
  rerankWeight: number;
  /** Most passages a vector search considers (its result count is counted among them). */
  maxCandidates: number;
}

const relative = (ms: Match[]): Scored[] => {
  const best = ms[0]?.raw ?? 0;
  return ms.map((m) => ({ seq: m.seq, chunkId: m.chunkId, score: best > 0 ? Math.min(1, m.raw / best) : 1 }));
};

export function ranking(d: RankingDeps) {
  /** BM25 passages of the objects the filters let through, best first. */
  const lexicalPassages = async (tenant: string, sel: Selection, query: string) => {
    const allowed = await d.index.allowed(sel);
    return (await d.lexical.passages(tenant, query, (seq) => allowed.has(seq))).sort((a, b) => b.score - a.score || a.chunkId - b.chunkId);
  };

  /** Objects ranked by their best passage (BM25 over passage text and title). */
  const fulltext = async (tenant: string, sel: Selection, query: string): Promise<Scored[]> => {
    const best = new Map<number, Match>();
    for (const p of await lexicalPassages(tenant, sel, query))
      if (!best.has(p.seq)) best.set(p.seq, { seq: p.seq, raw: p.score, chunkId: p.chunkId });
    return relative([...best.values()]);
  };

  const semantic = async (tenant: string, sel: Selection, query: string, want: number): Promise<Scored[]> => {
    const [vector] = await d.embedder.embed([query]);
    const k = Math.min(d.maxCandidates, Math.max(100, want * 3));
    const best = new Map<number, Scored>();
    for (const h of await d.vectors.search(tenant, vector, k, await d.index.allowed(sel))) {
      // Orthogonal or opposite: nothing in common, not a match however few results there are.
      if (h.similarity <= 0) continue;
      if (!best.has(h.seq)) best.set(h.seq, { seq: h.seq, chunkId: h.chunkId, score: Math.max(0, Math.min(1, (1 + h.similarity) / 2)) });
    }
    return [...best.values()];
  };

  const basic = async (sel: Selection, req: SearchRequest): Promise<Scored[]> => {
    if (!req.query.trim()) return (await d.index.listing(sel)).map((seq) => ({ seq, chunkId: null, score: 1 }));
    const match = textQuery(req.query, req.exact ? 'phrase' : 'all');
    if (!match) return [];
    const fields = relative(await d.index.fields(sel, match));
    if (!req.anywhere) return fields;
    const merged = new Map(fields.map((s) => [s.seq, s]));
    for (const s of relative(await d.index.chunks(sel, match))) {
      const f = merged.get(s.seq);
      if (!f || s.score > f.score) merged.set(s.seq, { ...s, score: Math.max(s.score, f?.score ?? 0) });
      else f.chunkId ??= s.chunkId;
    }
    return [...merged.values()].sort((a, b) => b.score - a.score || b.seq - a.seq);
  };

  const hybrid = async (
    tenant: string,
    sel: Selection,
    req: SearchRequest,
    want: number,
    texts: (s: Scored[]) => Promise<{ title: string; text: string }[]>,
  ) => {
    const [ft, sem] = await Promise.all([fulltext(tenant, sel, req.query), semantic(tenant, sel, req.query, want)]);
    const fused = reciprocalRankFusion([
      { items: ft.slice(0, d.maxCandidates).map((s) => ({ key: s.seq, chunkId: s.chunkId })), weight: 1 },
      { items: sem.map((s) => ({ key: s.seq, chunkId: s.chunkId })), weight: d.embedder.fusionWeight },
    ]);
    const best = fused[0]?.fused ?? 1;
    const scored: Scored[] = fused.map((f) => ({ seq: f.key, chunkId: f.chunkId, score: f.fused / best }));
    return req.rerank ? rerank(req.query, scored, texts) : scored;
  };

  /** Re-scores the first 50 with the re-ranker, blended with their rank score by `rerankWeight`. */
  const rerank = async <T extends { score: number }>(
    query: string,
    scored: T[],
    texts: (top: T[]) => Promise<{ title: string; text: string }[]>,
  ): Promise<T[]> => {
    if (!scored.length) return scored;
    // The re-ranker's order joins the fusion as one more ranked list of weight `rerankWeight`
    // (scores here are relative to the best fused one, i.e. a list's first place is worth 1).
    const top = scored.slice(0, 50);
    const relevance = await d.reranker.rerank(query, await texts(top));
    const order = top.map((_, i) => i).sort((a, b) => relevance[b] - relevance[a] || a - b);
    const bonus = new Map(order.map((i, rank) => [i, (d.rerankWeight * (RRF_K + 1)) / (RRF_K + rank + 1)]));
    const all = [...top.map((s, i) => ({ ...s, score: s.score + bonus.get(i)! })), ...scored.slice(50)].sort((a, b) => b.score - a.score);
    const best = all[0].score || 1;
    return all.map((s) => ({ ...s, score: s.score / best }));
  };

  /** Passages themselves (chunk search, v1 search and search_lite): fused like objects, or vectors only. */
  const passages = async (tenant: string, sel: Selection, req: PassageRequest): Promise<{ chunkId: number; score: number }[]> => {
    const [vector] = await d.embedder.embed([req.query]);
    const k = Math.min(d.maxCandidates, Math.max(100, (req.offset + req.limit) * 3));
    const sem = (await d.vectors.search(tenant, vector, k, await d.index.allowed(sel))).filter((h) => h.similarity > 0);
    let scored: { chunkId: number; score: number }[];
    if (req.mode === 'semantic') {
      scored = sem.map((h) => ({ chunkId: h.chunkId, score: (1 + h.similarity) / 2 }));
    } else {
      const ft = (await lexicalPassages(tenant, sel, req.query)).slice(0, d.maxCandidates);
      const fused = reciprocalRankFusion([
        { items: ft.map((p) => ({ key: p.chunkId, chunkId: p.chunkId })), weight: 1 },
        { items: sem.map((h) => ({ key: h.chunkId, chunkId: h.chunkId })), weight: d.embedder.fusionWeight },
      ]);
      const best = fused[0]?.fused ?? 1;
      scored = fused.map((f) => ({ chunkId: f.key, score: f.fused / best }));
    }
    if (!req.rerank) return scored;
    return rerank(req.query, scored, async (top) => {
      const texts = await d.index.chunkTexts(top.map((s) => s.chunkId));
      const objects = await d.index.objects([...new Set([...texts.values()].map((t) => t.seq))]);
      return top.map((s) => {
        const t = texts.get(s.chunkId);
        return { title: (t && objects.get(t.seq)?.title) ?? '', text: t?.text ?? '' };
      });
    });
  };

  return { fulltext, semantic, basic, hybrid, passages };
}

export type Ranking = ReturnType<typeof ranking>;
