import { z } from 'zod';
import { AnthropicRequest, anthropicChat, anthropicMessage, anthropicStreamEvents } from '../../core/models/vendors/anthropic';
import type { ChatMessage, ChatRequest, ChatStream, ChatUsage, FinishReason, ToolCall } from '../../core/models/neutral';
import {
  NovaInvokeRequest,
  converseMessage,
  converseStopReason,
  converseStreamEvents,
  converseToChat,
  converseTools,
  converseUsage,
} from '../../core/models/vendors/bedrock';
import { BadRequest } from '../../core/shared/errors';
import { isPlainObject } from '../../core/shared/validation';
import { anthropicMessageId } from './anthropic';
import { wireBody } from './bedrock-common';

/**
 * Bedrock's `/invoke` takes each model's native body. The gateway reads three, picked by the
 * body's shape: Anthropic Messages (`anthropic_version`, `max_tokens`), Nova (`messages` of content
 * blocks, `inferenceConfig`) and Llama (`prompt`, `max_gen_len`), and answers in the same family.
 */
export interface Answer {
  text: string;
  finishReason: FinishReason;
  usage: ChatUsage;
  toolCalls?: ToolCall[];
}

/** Bedrock's `amazon-bedrock-invocationMetrics`, on a stream's last chunk. */
export type InvocationMetrics = (usage: ChatUsage) => Record<string, number>;

export interface NativeCall {
  family: 'anthropic' | 'nova' | 'llama';
  chat: Omit<ChatRequest, 'model'>;
  answer(a: Answer): unknown;
  /** The stream's chunks, each one native event object (sent base64 in a `chunk` event). */
  chunks(stream: ChatStream, metrics: InvocationMetrics): AsyncIterable<Record<string, unknown>>;
}

export const LlamaRequest = z.object({
  prompt: z.string().min(1),
  max_gen_len: z.int().positive().optional(),
  temperature: z.number().min(0).max(1).optional(),
  top_p: z.number().min(0).max(1).optional(),
});

const LLAMA3_TURN =
  /<\|start_header_id\|>(system|user|assistant|ipython)<\|end_header_id\|>([\s\S]*?)(?=<\|eot_id\|>|<\|start_header_id\|>|$)/g;

/** A Llama prompt's turns: its chat template's (Llama 3 headers, Llama 2 `[INST]`), else the whole prompt as the user's. */
export function llamaTurns(prompt: string): ChatMessage[] {
  const turns = [...prompt.matchAll(LLAMA3_TURN)].map((t) => ({
    role: t[1] === 'ipython' ? ('tool' as const) : (t[1] as 'system' | 'user' | 'assistant'),
    text: t[2].trim(),
  }));
  if (turns.length) return turns.filter((t) => t.text);
  if (prompt.includes('[INST]')) {
    const out: ChatMessage[] = [];
    for (const part of prompt
      .split(/<\/?s>|\[INST\]/)
      .map((s) => s.trim())
      .filter(Boolean)) {
      const [asked, answered] = part.split('[/INST]').map((s) => s.trim());
      const sys = /<<SYS>>([\s\S]*?)<<\/SYS>>/.exec(asked ?? '');
      if (sys) out.push({ role: 'system', text: sys[1].trim() });
      const question = (asked ?? '').replace(/<<SYS>>[\s\S]*?<<\/SYS>>/, '').trim();
      if (question) out.push({ role: 'user', text: question });
      if (answered) out.push({ role: 'assistant', text: answered });
    }
    if (out.length) return out;
  }
  return [{ role: 'user', text: prompt }];
}

async function* anthropicChunks(stream: ChatStream, metrics: InvocationMetrics, model: string) {
  for await (const e of anthropicStreamEvents({ id: anthropicMessageId(), model }, stream)) {
    yield e.type === 'message_stop' ? { ...e, 'amazon-bedrock-invocationMetrics': metrics((await stream.done).usage) } : e;
  }
}

async function* novaChunks(stream: ChatStream, metrics: InvocationMetrics, started: number) {
  for await (const e of converseStreamEvents(stream, () => Date.now() - started)) {
    yield e.event === 'metadata'
      ? { metadata: e.payload, 'amazon-bedrock-invocationMetrics': metrics((await stream.done).usage) }
      : { [e.event]: e.payload };
  }
}

async function* llamaChunks(stream: ChatStream, metrics: InvocationMetrics) {
  let n = 0;
  for await (const generation of stream.pieces)
    yield { generation, prompt_token_count: null, generation_token_count: ++n, stop_reason: null };
  const { finishReason, usage } = await stream.done;
  yield {
    generation: '',
    prompt_token_count: usage.promptTokens,
    generation_token_count: usage.completionTokens,
    stop_reason: finishReason === 'length' ? 'length' : 'stop',
    'amazon-bedrock-invocationMetrics': metrics(usage),
  };
}

/** The native call a body stands for: a 400 when it is none of the three, or names its bad field. */
export function nativeCall(body: unknown, model: string, started: number): NativeCall {
  if (!isPlainObject(body)) throw new BadRequest("The body must be a JSON object: a model's native request", { code: 'invalid_request' });
  if ('anthropic_version' in body || 'max_tokens' in body) {
    const b = wireBody(AnthropicRequest, body);
    return {
      family: 'anthropic',
      chat: anthropicChat(b),
      answer: (a) => anthropicMessage({ id: anthropicMessageId(), model }, a),
      chunks: (stream, metrics) => anthropicChunks(stream, metrics, model),
    };
  }
  if ('prompt' in body) {
    const b = wireBody(LlamaRequest, body);
    return {
      family: 'llama',
      chat: { messages: llamaTurns(b.prompt), maxTokens: b.max_gen_len, temperature: b.temperature, topP: b.top_p },
      answer: (a) => ({
        generation: a.text,
        prompt_token_count: a.usage.promptTokens,
        generation_token_count: a.usage.completionTokens,
        stop_reason: a.finishReason === 'length' ? 'length' : 'stop',
      }),
      chunks: llamaChunks,
    };
  }
  if ('messages' in body) {
    const b = wireBody(NovaInvokeRequest, body);
    const c = b.inferenceConfig;
    return {
      family: 'nova',
      chat: {
        messages: converseToChat(b),
        maxTokens: c?.max_new_tokens ?? c?.maxTokens,
        temperature: c?.temperature,
        topP: c?.top_p ?? c?.topP,
        stop: c?.stopSequences,
        ...converseTools(b),
      },
      answer: (a) => ({
        output: { message: converseMessage(a) },
        stopReason: converseStopReason(a.finishReason),
        usage: converseUsage(a.usage),
      }),
      chunks: (stream, metrics) => novaChunks(stream, metrics, started),
    };
  }
  throw new BadRequest(
    'Unknown model request: send an Anthropic Messages body (anthropic_version, max_tokens, messages), ' +
      'a Nova body (messages, inferenceConfig) or a Llama body (prompt, max_gen_len)',
    { code: 'invalid_request' },
  );
}
