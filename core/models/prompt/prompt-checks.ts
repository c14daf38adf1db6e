import { BadRequest } from '../../shared/errors';
import type { CatalogModel } from '../catalog/catalog';
import type { ChatMessage } from '../neutral';
import { GuardrailViolation, type Detector } from './guard';
import type { Offload } from '../offload/offload';
import { countAll, minTokens } from './tokens';
import { InvalidTokenIds } from './token-ids';

/**
 * The checks a prompt meets before it goes upstream, bounded in the time they take: its length
 * against the model's context (DECISIONS: over it, 400 `context_length_exceeded`) and the input
 * guard. Long texts are read in a worker thread (offload.ts).
 */

/** Prompts of at most this many bytes within the context are counted only if the upstream does not count them. */
const COUNT_LATER_BYTES = 8192;

const utf8Bytes = (texts: readonly string[]) => texts.reduce((n, t) => n + Buffer.byteLength(t), 0);
const chars = (texts: readonly string[]) => texts.reduce((n, t) => n + t.length, 0);

const tooLong = (model: CatalogModel, what: string) =>
  new BadRequest(`This model's maximum context length is ${model.contextLength} tokens; the messages have ${what}.`, {
    code: 'context_length_exceeded',
  });

/**
 * The prompt's tokens (later, when it is short enough to fit uncounted: a token is at least a
 * byte), or a 400 when they are over the model's context length. The UTF-8 length alone settles
 * it when it is over MAX_TOKEN_BYTES tokens' worth (a token is at most that many bytes); else it is
 * counted, and counting stops as soon as it is over.
 */
export async function promptTokensWithin(
  offload: Offload,
  model: CatalogModel,
  texts: readonly string[],
  signal?: AbortSignal,
): Promise<number | (() => number)> {
  const bytes = utf8Bytes(texts);
  if (bytes <= model.contextLength && bytes <= COUNT_LATER_BYTES) return () => countAll(texts);
  if (minTokens(bytes) > model.contextLength) throw tooLong(model, `at least ${minTokens(bytes)} tokens`);
  const n = await offload.run('count', [texts, model.contextLength], chars(texts), signal);
  if (n > model.contextLength) throw tooLong(model, `more than ${model.contextLength} tokens`);
  return n;
}

/** Each embedding input's tokens, or a 400 naming the first over the model's context length. */
export async function inputTokensWithin(
  offload: Offload,
  model: CatalogModel,
  inputs: readonly string[],
  signal?: AbortSignal,
): Promise<number[]> {
  const over = (i: number, what: string) =>
    new BadRequest(`Input ${i} has ${what} tokens; the model's maximum is ${model.contextLength}.`, { code: 'context_length_exceeded' });
  inputs.forEach((t, i) => {
    const least = minTokens(Buffer.byteLength(t));
    if (least > model.contextLength) throw over(i, `at least ${least}`);
  });
  const counts = await offload.run('countEach', [inputs, model.contextLength], chars(inputs), signal);
  const i = counts.findIndex((n) => n > model.contextLength);
  if (i >= 0) throw over(i, `more than ${model.contextLength}`);
  return counts;
}

/** The input guard over a prompt (guard.ts): user texts checked and redacted, the others redacted; GuardrailViolation when blocked. */
export async function guardPrompt<M extends Pick<ChatMessage, 'role' | 'text'>>(
  offload: Offload,
  messages: readonly M[],
  signal?: AbortSignal,
): Promise<{ messages: M[]; redacted: Detector[] }> {
  const texts = messages.map((m) => ({ role: m.role, text: m.text }));
  const g = await offload.run('guard', [texts], chars(texts.map((t) => t.text)), signal);
  if (g.blocked.length) throw new GuardrailViolation(g.blocked);
  return { messages: messages.map((m, i) => ({ ...m, text: g.texts[i] })), redacted: g.redacted };
}

/** Decodes in the offload pool's thread (never here: loading the vocabulary would hold the event loop); a 400 naming the first id that is no token. */
export async function decodedInputs(offload: Offload, ids: readonly (readonly number[])[], signal?: AbortSignal): Promise<string[]> {
  const d = await offload.run('decode', [ids], Number.MAX_SAFE_INTEGER, signal);
  if ('texts' in d) return d.texts;
  const { input, at, id } = d.invalid;
  throw new InvalidTokenIds(
    `Invalid token id ${id} at input[${input}][${at}]: not a token of cl100k_base (the encoding of OpenAI's embedding models).`,
  );
}
