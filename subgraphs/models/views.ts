import { z } from 'zod';
import { isActive, type CatalogModel } from '../../core/models/catalog/catalog';
import type { ChatUsage } from '../../core/models/neutral';
import type { ChatFields } from '../../core/models/service';
import type { UsageTotals } from '../../core/models/usage/usage';
import { parseArgs } from '../shared/args';

/**
 * The models subgraph's shapes: catalog entries and usage rows as GraphQL objects (enum values
 * upper-cased), and the bounds on its arguments.
 */

/** Characters of one message or one text to embed; the body limit bounds the whole request too. */
export const MAX_CONTENT = 1_000_000;

export const ChatArgs = z.object({
  messages: z
    .array(z.object({ role: z.enum(['SYSTEM', 'USER', 'ASSISTANT']), content: z.string().max(MAX_CONTENT) }))
    .min(1)
    .max(1000),
  maxTokens: z.int().positive().max(1_000_000).optional(),
  temperature: z.number().min(0).max(2).optional(),
  topP: z.number().min(0).max(1).optional(),
  // OpenAI's bound, which the vendors with stop sequences share.
  stop: z.array(z.string().min(1).max(1000)).max(4).optional(),
});

/** ChatInput as GraphQL gives it. */
export interface ChatInputArgs {
  model: string;
  messages: { role: string; content: string }[];
  maxTokens?: number | null;
  temperature?: number | null;
  topP?: number | null;
  stop?: string[] | null;
}

const ROLE = { SYSTEM: 'system', USER: 'user', ASSISTANT: 'assistant' } as const;

/** A ChatInput's call (its model apart), checked as ChatArgs says: issues located at `input`. */
export function chatFields(input: ChatInputArgs, stream: boolean): ChatFields {
  const { messages, maxTokens, temperature, topP, stop } = input;
  const args = parseArgs(ChatArgs, { messages, maxTokens, temperature, topP, stop }, {}, ['input']);
  return {
    messages: args.messages.map((m) => ({ role: ROLE[m.role], text: m.content })),
    maxTokens: args.maxTokens,
    temperature: args.temperature,
    topP: args.topP,
    stop: args.stop,
    stream,
  };
}

/** TokenUsage: the call's counts and their sum. */
export const usageView = (u: ChatUsage) => ({ ...u, totalTokens: u.promptTokens + u.completionTokens });

/** Texts or token ids (OpenAI's arrays of integers), one of the two; GRAPHQL_MAX_VARIABLE_VALUES bounds how many ids. */
export const EmbedArgs = z
  .object({
    inputs: z.array(z.string().max(MAX_CONTENT)).min(1).max(2048).optional(),
    tokenIds: z
      .array(z.array(z.int().min(0)).min(1))
      .min(1)
      .max(2048)
      .optional(),
  })
  .check((c) => {
    if ((c.value.inputs === undefined) === (c.value.tokenIds === undefined)) {
      c.issues.push({
        code: 'custom',
        input: c.value,
        path: ['inputs'],
        message: 'Give inputs (texts) or tokenIds (token ids), one of the two',
      });
    }
  });

export const modelView = (m: CatalogModel) => ({
  id: m.id,
  group: m.group.toUpperCase(),
  kind: m.kind.toUpperCase(),
  status: m.status,
  contextLength: m.contextLength,
  maxOutputTokens: m.maxOutputTokens ?? null,
  inputKinds: m.inputKinds.map((k) => k.toUpperCase()),
  provider: m.upstream.provider,
  price: m.price,
  // Only models the key may use are ever shown, so being allowed is a given here.
  available: isActive(m),
});

export const totalsView = (t: UsageTotals) => ({
  requests: t.requests,
  tokensIn: t.tokens_in,
  tokensOut: t.tokens_out,
  wordsSent: t.words_sent,
  wordsReceived: t.words_received,
  cacheHits: t.cache_hits,
  errors: t.errors,
  cost: t.cost,
});
