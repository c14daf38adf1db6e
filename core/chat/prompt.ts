import { BadRequest } from '../errors';
import type { ChatMessage } from '../models/chat';
import { countTokens } from '../models/local-chat';
import type { Passage } from '../search/types';
import { CONTINUE, type HistoryTurn } from './conversation';
import type { AnswerSource } from './service';

export const DEFAULT_INSTRUCTIONS = 'You are a helpful assistant. Answer the question from the numbered sources below and cite each fact '
  + 'with its source number in square brackets, like [1]. If the sources do not hold the answer, say that you could not find it.';

export interface PromptParts {
  instructions?: string;
  examples: readonly { user_query: string; response: string }[];
  history: readonly HistoryTurn[];
  /** The answer so far, for a continuation. */
  prevContext?: string;
  /** The processed query (`continue` for a continuation). */
  question: string;
  /** Passages of the uploaded files, then of the search, best first within each. */
  files: readonly Passage[];
  search: readonly Passage[];
}

/** Sources in the order the prompt cites them: uploaded files first (the user just gave them), then search results; a passage once. */
export function numberSources(files: readonly Passage[], search: readonly Passage[]): AnswerSource[] {
  const seen = new Set<string>();
  const out: AnswerSource[] = [];
  for (const [category, list] of [['InputFile', files], ['search', search]] as const) {
    for (const p of list) {
      const key = `${p.objectId}:${p.chunkId}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ citation: out.length + 1, objectId: p.objectId, title: p.title, fileName: p.fileName, category, score: p.score, text: p.text });
    }
  }
  return out;
}

const sourceBlock = (s: AnswerSource) => `[${s.citation}] ${s.title || s.fileName || s.objectId}${s.fileName && s.fileName !== s.title ? ` (${s.fileName})` : ''}\n${s.text}`;

/** Chat-format overhead per message and per prompt, as the gateway counts it. */
const PER_MESSAGE = 4;
const PER_PROMPT = 3;
const tokensOf = (m: ChatMessage) => countTokens(m.text) + PER_MESSAGE;

function messagesOf(p: PromptParts, sources: readonly AnswerSource[], history: readonly HistoryTurn[], examples: PromptParts['examples'], prev?: string): ChatMessage[] {
  const turns = (list: readonly { user_query: string; response?: string }[]) => list.flatMap((t): ChatMessage[] => [
    ...(t.user_query ? [{ role: 'user' as const, text: t.user_query }] : []),
    ...(t.response ? [{ role: 'assistant' as const, text: t.response }] : []),
  ]);
  return [
    { role: 'system', text: p.instructions?.trim() || DEFAULT_INSTRUCTIONS },
    ...(sources.length ? [{ role: 'system' as const, text: `Sources:\n\n${sources.map(sourceBlock).join('\n\n')}` }] : []),
    ...turns(examples),
    ...turns(history),
    ...(prev !== undefined ? [{ role: 'assistant' as const, text: prev }] : []),
    { role: 'user', text: p.question },
  ];
}

/**
 * The prompt, within `budget` tokens (the model's context length less the answer's room), counted
 * with gpt-tokenizer: what does not fit goes in this order — the oldest history turns, the
 * lowest-ranked sources (the last one kept may be cut), the examples, the start of the answer so
 * far. Instructions and the question always stay; when they alone are over, it is a 400.
 */
export function buildPrompt(p: PromptParts, all: readonly AnswerSource[], budget: number): { messages: ChatMessage[]; sources: AnswerSource[] } {
  let history = p.question === CONTINUE && p.prevContext !== undefined && p.history.at(-1)?.response === p.prevContext
    ? [...p.history.slice(0, -1), { user_query: p.history.at(-1)!.user_query }] : [...p.history];
  let sources = [...all];
  let examples = [...p.examples];
  let prev = p.prevContext;
  const build = () => messagesOf(p, sources, history, examples, prev);
  // A token is at least one byte, so a prompt with no more bytes than the budget fits uncounted.
  const fits = (ms: ChatMessage[]) => ms.reduce((n, m) => n + Buffer.byteLength(m.text) + PER_MESSAGE, PER_PROMPT) <= budget
    || ms.reduce((n, m) => n + tokensOf(m), PER_PROMPT) <= budget;
  let messages = build();
  while (!fits(messages) && history.length) { history = history.slice(1); messages = build(); }
  while (!fits(messages) && sources.length > 1) { sources = sources.slice(0, -1); messages = build(); }
  if (!fits(messages) && sources.length === 1) {
    sources = [{ ...sources[0], text: cutToFit(sources[0].text, budget - used(messagesOf(p, [], history, examples, prev))) }];
    if (!sources[0].text) sources = [];
    messages = build();
  }
  while (!fits(messages) && examples.length) { examples = examples.slice(0, -1); messages = build(); }
  if (!fits(messages) && prev !== undefined) {
    prev = tail(prev, budget - used(messagesOf(p, sources, history, examples, '')));
    messages = build();
  }
  if (!fits(messages)) {
    throw new BadRequest(`The question and instructions alone are ${used(messages)} tokens; the model reads ${budget} besides its answer.`, { code: 'context_length_exceeded' });
  }
  return { messages, sources };
}

const used = (ms: ChatMessage[]) => ms.reduce((n, m) => n + tokensOf(m), PER_PROMPT);

/** The longest start (or end) of `text`, cut at a word, whose tokens plus `extra` fit in `room`. */
function longest(text: string, room: number, from: 'start' | 'end', extra = 0): string {
  const words = text.split(/(?<=\s)/);
  const take = (n: number) => (from === 'start' ? words.slice(0, n) : words.slice(words.length - n)).join('');
  let lo = 0;
  let hi = words.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (countTokens(take(mid)) + extra <= room) lo = mid;
    else hi = mid - 1;
  }
  return take(lo);
}

/** A source's text cut to `room` tokens, leaving room for its `[n] title` heading. */
const cutToFit = (text: string, room: number) => longest(text, room, 'start', 24).trim();
const tail = (text: string, room: number) => longest(text, room, 'end');
