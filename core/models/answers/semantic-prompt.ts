import { createHash } from 'node:crypto';
import type { ChatRequest } from '../neutral';
import { cacheKey } from './cache';

/**
 * What the semantic cache compares of a chat request (docs/semantic-cache.md). Two requests may
 * share an answer only when everything but the wording of the question is equal: that is the shape,
 * the exact cache's key (cache.ts: tenant, catalog model, tools, response format, sampling settings,
 * every message's role, attachments and tool calls, the system instructions, the earlier turns) with
 * the last user message's text left out. That text is what is embedded: its last `maxChars` only, so
 * that a huge prompt costs one bounded embedding; whatever comes before that tail is part of the
 * shape, compared exactly. Only the question is compared by meaning: a system prompt carrying the
 * same sources for every question would otherwise make any two questions over them look alike.
 */

/** Characters of the last user message embedded (the rest is compared exactly). */
export const EMBEDDED_CHARS = 8192;

export interface SemanticPrompt {
  /** The request's shape (hex): its key without the question, and the question's text before its embedded tail. */
  shape: string;
  /** The text to embed: the last `maxChars` of the last user message's text (empty when there is none). */
  text: string;
}

export function semanticPrompt(tenant: string, catalog: string, request: ChatRequest, maxChars = EMBEDDED_CHARS): SemanticPrompt {
  const last = request.messages.findLastIndex((m) => m.role === 'user');
  const question = last < 0 ? '' : request.messages[last].text;
  const cut = Math.max(0, question.length - maxChars);
  const masked = request.messages.map((m, i) => (i === last ? { ...m, text: '' } : m));
  const shape = createHash('sha256')
    .update(cacheKey(tenant, catalog, { ...request, messages: masked }))
    .update('\0')
    .update(question.slice(0, cut))
    .digest('hex');
  return { shape, text: question.slice(cut) };
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
