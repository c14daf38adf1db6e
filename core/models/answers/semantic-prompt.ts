import { createHash } from 'node:crypto';
import type { ChatRequest } from '../neutral';
import { cacheKey } from './cache';

/**
 * What the semantic cache compares of a chat request (docs/semantic-cache.md). Two requests may
 * share an answer only when everything but the prompt's wording is equal: that is the shape, the
 * exact cache's key (cache.ts: tenant, catalog model, tools, response format, sampling settings,
 * message roles, attachments, tool calls, assistant and tool texts) with the user and system texts
 * left out. Those texts, joined in order, are what is embedded: their last `maxChars` only, so that
 * a huge prompt costs one bounded embedding; whatever comes before that tail is part of the shape,
 * compared exactly, so a long conversation matches only one that begins the same way.
 */

/** Characters of the user and system texts embedded (the rest is compared exactly). */
export const EMBEDDED_CHARS = 8192;

/** The texts the semantic cache embeds: what the caller asks and instructs, not what a model or a tool said. */
const embedded = (role: string) => role === 'user' || role === 'system';

export interface SemanticPrompt {
  /** The request's shape (hex): its key without the embedded texts, and the texts before the embedded tail. */
  shape: string;
  /** The text to embed: the last `maxChars` of the user and system texts joined by new lines. */
  text: string;
}

export function semanticPrompt(tenant: string, catalog: string, request: ChatRequest, maxChars = EMBEDDED_CHARS): SemanticPrompt {
  const joined = request.messages
    .filter((m) => embedded(m.role))
    .map((m) => m.text)
    .join('\n');
  const cut = Math.max(0, joined.length - maxChars);
  const masked = request.messages.map((m) => (embedded(m.role) ? { ...m, text: '' } : m));
  const shape = createHash('sha256')
    .update(cacheKey(tenant, catalog, { ...request, messages: masked }))
    .update('\0')
    .update(joined.slice(0, cut))
    .digest('hex');
  return { shape, text: joined.slice(cut) };
}

/** Cosine similarity of two vectors of one embedder (0 when either is all zeros, or their lengths differ). */
export function cosine(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) return 0;
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/** The entries at or above `threshold`, most similar first (the newest first among equals). */
export function nearest<E extends { vector: Float32Array }>(
  entries: readonly E[],
  vector: Float32Array,
  threshold: number,
): (E & { similarity: number })[] {
  return entries
    .map((e) => ({ ...e, similarity: cosine(e.vector, vector) }))
    .filter((e) => e.similarity >= threshold)
    .sort((x, y) => y.similarity - x.similarity);
}
