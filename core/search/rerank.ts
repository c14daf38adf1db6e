import type { Reranker } from './fusion';
import { coverage } from './highlight';
import { queryWords } from '../shared/text/words';

/**
 * The built-in re-ranker: the share of the query's content words that the candidate's title and
 * best passage contain. It needs no model; it favours candidates that answer the whole question over
 * those that repeat one of its words. Its weight against the fused rank is the service's
 * `rerankWeight` (measured on SciFact by `npm run bench:search`).
 */
export const coverageReranker = (): Reranker => ({
  id: 'coverage',
  rerank: async (query, candidates) => {
    const words = queryWords(query);
    return candidates.map((c) => coverage(`${c.title} ${c.text}`, words));
  },
});
