import { guardTexts } from '../prompt/guard';
import { extractiveAnswer } from '../vendors/local/extractive-answer';
import type { ChatMessage } from '../neutral';
import { countAll, countTokens, fitIndex } from '../prompt/tokens';
import { decodeTokenIds } from '../prompt/token-ids';
import { hashingVectors } from '../../shared/text/embedder';

/**
 * The work on a request's text whose cost grows with its length: token counts, the input guard,
 * the built-in chat model's answer and embedder's vectors, token ids decoded to text.
 * Pure functions of plain data, so that offload.ts can run them in a worker thread.
 */
export const JOBS = {
  /** The tokens of the texts together, counted until over `limit`. */
  count: (texts: readonly string[], limit: number) => countAll(texts, limit),
  /** Each text's tokens, each counted until over `limit`. */
  countEach: (texts: readonly string[], limit: number) => texts.map((t) => countTokens(t, limit)),
  fit: (text: string, room: number, from: 'start' | 'end') => fitIndex(text, room, from),
  guard: (messages: readonly { role: string; text: string }[]) => guardTexts(messages),
  answer: (messages: readonly Pick<ChatMessage, 'role' | 'text'>[]) => extractiveAnswer(messages),
  embed: (texts: readonly string[], dimensions: number) => hashingVectors(texts, dimensions),
  decode: (ids: readonly (readonly number[])[]) => decodeTokenIds(ids),
};

export type Jobs = typeof JOBS;
export type JobName = keyof Jobs;
export interface Job<K extends JobName = JobName> {
  name: K;
  args: Parameters<Jobs[K]>;
}

export const runJob = <K extends JobName>(job: Job<K>): ReturnType<Jobs[K]> =>
  (JOBS[job.name] as unknown as (...a: Parameters<Jobs[K]>) => ReturnType<Jobs[K]>)(...job.args);
