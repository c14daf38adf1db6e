import { BadRequest } from '../shared/errors';
import type { ChatMessage } from '../models/neutral';
import type { Offload } from '../models/offload/offload';
import { countAll, fitIndex } from '../models/prompt/tokens';
import type { Passage } from '../search/types';
import { CONTINUE, type HistoryTurn } from './conversation';
import type { AnswerSource } from './service';

export const DEFAULT_INSTRUCTIONS =
  'You are a helpful assistant. Answer the question from the numbered sources below and cite each fact ' +
  'with its source number in square brackets, like [1]. If the sources do not hold the answer, say that you could not find it.';

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
  for (const [category, list] of [
    ['InputFile', files],
    ['search', search],
  ] as const) {
    for (const p of list) {
      const key = `${p.objectId}:${p.chunkId}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({
        citation: out.length + 1,
        objectId: p.objectId,
        title: p.title,
        fileName: p.fileName,
        category,
        score: p.score,
        text: p.text,
      });
    }
  }
  return out;
}

const sourceBlock = (s: AnswerSource) =>
  `[${s.citation}] ${s.title || s.fileName || s.objectId}${s.fileName && s.fileName !== s.title ? ` (${s.fileName})` : ''}\n${s.text}`;

/** Chat-format overhead per message and per prompt, as the gateway counts it. */
const PER_MESSAGE = 4;
const PER_PROMPT = 3;

/**
 * How the prompt's tokens are counted (core/models/tokens.ts): in a worker thread for long texts
 * when the gateway of this process offers one (offload.ts), else here.
 */
export interface PromptTokens {
  /** The tokens of `texts` together; once over `limit`, some number over it (counting stops there). */
  count(texts: readonly string[], limit: number, signal?: AbortSignal): Promise<number>;
  /** Where to cut `text` so that its start (or end) is the longest within `room` tokens. */
  fit(text: string, room: number, from: 'start' | 'end', signal?: AbortSignal): Promise<number>;
}

export const inlinePromptTokens: PromptTokens = {
  count: async (texts, limit) => countAll(texts, limit),
  fit: async (text, room, from) => fitIndex(text, room, from),
};

export const offloadPromptTokens = (o: Offload): PromptTokens => ({
  count: (texts, limit, signal) =>
    o.run(
      'count',
      [texts, limit],
      texts.reduce((n, t) => n + t.length, 0),
      signal,
    ),
  fit: (text, room, from, signal) => o.run('fit', [text, room, from], text.length, signal),
});

function messagesOf(
  p: PromptParts,
  sources: readonly AnswerSource[],
  history: readonly HistoryTurn[],
  examples: PromptParts['examples'],
  prev?: string,
): ChatMessage[] {
  const turns = (list: readonly { user_query: string; response?: string }[]) =>
    list.flatMap((t): ChatMessage[] => [
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
 * as the gateway counts them: what does not fit goes in this order — the oldest history turns, the
 * lowest-ranked sources (the last one kept may be cut), the examples, the start of the answer so
 * far. Instructions and the question always stay; when they alone are over, it is a 400. Each text
 * is counted once, and no further than the budget, so a long one costs no more than the budget's
 * worth of text (and is counted off the event loop, by `tokens`).
 */
export async function buildPrompt(
  p: PromptParts,
  all: readonly AnswerSource[],
  budget: number,
  tokens: PromptTokens = inlinePromptTokens,
  signal?: AbortSignal,
): Promise<{ messages: ChatMessage[]; sources: AnswerSource[] }> {
  let history =
    p.question === CONTINUE && p.prevContext !== undefined && p.history.at(-1)?.response === p.prevContext
      ? [...p.history.slice(0, -1), { user_query: p.history.at(-1)!.user_query }]
      : [...p.history];
  let sources = [...all];
  let examples = [...p.examples];
  let prev = p.prevContext;
  const counted = new Map<string, Promise<number>>();
  const tokensOf = (text: string) => {
    let n = counted.get(text);
    if (!n) counted.set(text, (n = tokens.count([text], budget, signal)));
    return n;
  };
  /** The prompt's tokens, or some number over the budget. */
  const used = async (ms: ChatMessage[]) =>
    (await Promise.all(ms.map((m) => tokensOf(m.text)))).reduce((n, t) => n + t + PER_MESSAGE, PER_PROMPT);
  // A token is at least one byte, so a prompt with no more bytes than the budget fits uncounted.
  const fits = async (ms: ChatMessage[]) =>
    ms.reduce((n, m) => n + Buffer.byteLength(m.text) + PER_MESSAGE, PER_PROMPT) <= budget || (await used(ms)) <= budget;
  const build = () => messagesOf(p, sources, history, examples, prev);
  let messages = build();
  while (!(await fits(messages)) && history.length) {
    history = history.slice(1);
    messages = build();
  }
  while (!(await fits(messages)) && sources.length > 1) {
    sources = sources.slice(0, -1);
    messages = build();
  }
  if (!(await fits(messages)) && sources.length === 1) {
    // Room for the source's `[n] title` heading besides its text.
    const room = budget - (await used(messagesOf(p, [], history, examples, prev))) - 24;
    const text = room > 0 ? sources[0].text.slice(0, await tokens.fit(sources[0].text, room, 'start', signal)).trim() : '';
    sources = text ? [{ ...sources[0], text }] : [];
    messages = build();
  }
  while (!(await fits(messages)) && examples.length) {
    examples = examples.slice(0, -1);
    messages = build();
  }
  if (!(await fits(messages)) && prev !== undefined) {
    const room = budget - (await used(messagesOf(p, sources, history, examples, '')));
    prev = room > 0 ? prev.slice(await tokens.fit(prev, room, 'end', signal)) : '';
    messages = build();
  }
  if (!(await fits(messages))) {
    throw new BadRequest(`The question and instructions alone are over the ${budget} tokens the model reads besides its answer.`, {
      code: 'context_length_exceeded',
    });
  }
  return { messages, sources };
}
