import type { Clock } from '../../shared/clock';
import type { ChatRequest, ChatStream } from '../neutral';
import type { SemanticStore } from '../ports';
import { cacheKey, type ChatCache } from './cache';
import { nearest, semanticPrompt } from './semantic-prompt';

/**
 * The semantic cache (`semantic_cache` key option, docs/semantic-cache.md): the exact cache first;
 * on an exact miss, the prompt's embedding is compared with those of the tenant's earlier requests
 * of the same shape (semantic-prompt.ts), and the most similar at or above the caller's threshold
 * answers, replayed from the AnswerStore under its exact key. On a miss the upstream's answer is
 * kept for both: under its exact key, and (once kept) as an entry pointing at it. Like the exact
 * cache it is an optimisation, never a dependency: a failed embedding or store is a miss, reported.
 */
export type SemanticOutcome = 'HIT' | 'SEMANTIC_HIT' | 'MISS';

/** What failed: the embedding call, reading or writing the semantic store. */
export type SemanticOp = 'embed' | 'get' | 'set';

export interface SemanticCall {
  tenant: string;
  /** The catalog model's id. */
  catalog: string;
  /** The request as it goes upstream (guarded): what the exact key and the shape are made of. */
  request: ChatRequest;
  /** The least cosine similarity that answers, in (0, 1]; 1 answers exact matches only (no embedding). */
  threshold: number;
  /** The embedding of a text, by the catalog's embedding model, metered under the caller's key. */
  embed(text: string): Promise<Float32Array>;
}

export interface SemanticCache {
  through(
    call: SemanticCall,
    upstream: () => Promise<ChatStream>,
  ): Promise<{ stream: ChatStream; outcome: SemanticOutcome; similarity?: number }>;
}

/** Candidates above the threshold read before giving up (their answer may have expired or been evicted). */
const CANDIDATES = 3;

export function semanticCache(d: {
  cache: ChatCache;
  store: SemanticStore;
  clock: Clock;
  ttlMs: number;
  onError?: (op: SemanticOp, err: Error) => void;
}): SemanticCache {
  const report = (op: SemanticOp, e: unknown) => d.onError?.(op, e instanceof Error ? e : new Error(String(e)));
  return {
    async through(call, upstream) {
      const key = cacheKey(call.tenant, call.catalog, call.request);
      const exact = await d.cache.read(key);
      // The answer store is down or stalled: this call leaves both stores alone.
      if (exact === 'failed') return { stream: await upstream(), outcome: 'MISS' };
      if (exact) return { stream: exact, outcome: 'HIT' };
      if (call.threshold >= 1) return { stream: d.cache.record(key, await upstream()), outcome: 'MISS' };

      const { shape, text } = semanticPrompt(call.tenant, call.catalog, call.request);
      let vector: Float32Array | undefined;
      // A prompt with no user or system text has nothing to compare.
      if (text.trim()) {
        try {
          vector = await call.embed(text);
        } catch (e) {
          report('embed', e);
        }
      }
      if (vector) {
        let found: { key: string; similarity: number }[] = [];
        try {
          found = nearest(await d.store.entries(call.tenant, shape, d.clock.now(), d.ttlMs), vector, call.threshold);
        } catch (e) {
          report('get', e);
        }
        for (const f of found.slice(0, CANDIDATES)) {
          const s = await d.cache.read(f.key);
          if (s === 'failed') break;
          if (s) return { stream: s, outcome: 'SEMANTIC_HIT', similarity: f.similarity };
        }
      }

      const answer = await upstream();
      const at = d.clock.now();
      const kept =
        vector && (() => void d.store.add(call.tenant, shape, { vector, key, at }, d.ttlMs).catch((e: unknown) => report('set', e)));
      return { stream: d.cache.record(key, answer, kept), outcome: 'MISS' };
    },
  };
}
