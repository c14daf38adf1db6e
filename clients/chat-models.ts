import { createHash } from 'node:crypto';
import type { AnswerModels, ModelHandle } from '../core/chat/ports';
import { BadRequest, NotFound, PlatformError, UpstreamFailed } from '../core/errors';
import type { ChatStream, ChatUsage, FinishReason } from '../core/models/chat';
import { finishOf, openAiMessages } from '../core/models/providers/openai-chat-shared';
import { httpClient, type RequestOptions } from './http';

/** A model of the gateway's catalog listing (GET /proxy/api/v1/models), the fields the proxy reads. */
interface ModelWire {
  id: string;
  kind: string;
  status: string;
  context_length: number;
  max_output_tokens?: number | null;
}

/** The group A answer: a `chat.completion`, or one `chat.completion.chunk` of its stream (or a midway `error`). */
interface CompletionWire {
  choices?: { message?: { content?: string | null }; delta?: { content?: string | null }; finish_reason?: string | null }[];
  usage?: { prompt_tokens?: number; completion_tokens?: number } | null;
  error?: { message?: string; code?: string };
}

const PREFIX = '/proxy/api/v1';
const API_VERSION = '2024-10-21';
const GATEWAY = 'the model gateway';
/** Each answer needs the key's models; a short memory of them saves a round trip per answer. */
const LIST_TTL_MS = 30_000;
const LIST_KEYS = 1000;

const usageOf = (u: CompletionWire['usage']): ChatUsage => ({ promptTokens: u?.prompt_tokens ?? 0, completionTokens: u?.completion_tokens ?? 0 });

function failedMidway(e: NonNullable<CompletionWire['error']>): UpstreamFailed {
  return new UpstreamFailed(`${GATEWAY} failed midway${e.message ? `: ${e.message}` : ''}`, { code: e.code ?? 'upstream_error' });
}

/**
 * The answer's chunks as a ChatStream, from its first chunk on (already read: the gateway accepted
 * the call). `pieces` throws the platform error when the stream breaks midway (the caller's own
 * abort reason when it left); `done` always resolves, with finishReason `error` then, or when the
 * reader stopped first. Leaving the loop early cancels the HTTP body.
 */
function streamOf(first: IteratorResult<CompletionWire>, rest: AsyncGenerator<CompletionWire>, signal?: AbortSignal): ChatStream {
  let settle!: (v: { finishReason: FinishReason; usage: ChatUsage }) => void;
  const done = new Promise<{ finishReason: FinishReason; usage: ChatUsage }>((resolve) => (settle = resolve));
  async function* pieces(): AsyncGenerator<string> {
    let finish: FinishReason = 'stop';
    let outcome: FinishReason = 'error';
    let usage = usageOf(undefined);
    try {
      for (let r = first; !r.done; r = await rest.next()) {
        const c = r.value;
        if (c.error) throw failedMidway(c.error);
        if (c.usage) usage = usageOf(c.usage);
        const choice = c.choices?.[0];
        if (choice?.finish_reason) finish = finishOf(choice.finish_reason);
        if (choice?.delta?.content) yield choice.delta.content;
      }
      outcome = finish;
    } catch (err) {
      if (signal?.aborted) throw signal.reason ?? err;
      throw err instanceof PlatformError ? err : new UpstreamFailed(`${GATEWAY}: the answer broke off`, { code: 'upstream_error', cause: err });
    } finally {
      await rest.return(undefined).catch(() => undefined);
      settle({ finishReason: outcome, usage });
    }
  }
  return { pieces: pieces(), done };
}

/** A whole `chat.completion` as a ChatStream of one piece. */
function wholeOf(answer: CompletionWire): ChatStream {
  const choice = answer.choices?.[0];
  if (!choice) throw new UpstreamFailed(`${GATEWAY} sent a chat completion without choices`, { code: 'upstream_bad_response' });
  const text = choice.message?.content ?? '';
  const finishReason = finishOf(choice.finish_reason ?? 'stop');
  return { pieces: (async function* whole() { if (text) yield text; })(), done: Promise.resolve({ finishReason, usage: usageOf(answer.usage) }) };
}

/**
 * The model gateway at `baseUrl` over its REST paths (the catalog, group A chat completions), with
 * the user's LM key: the gateway's keys, limits, cache, guardrails and usage apply as in process,
 * and its refusals come back as the same platform errors. A model the key may not use is not in
 * its listing, so it is a 404 here (in process: 403). A 429 is passed on at once with its
 * Retry-After, as in process, not waited out.
 */
export function restAnswerModels(opts: { baseUrl: string; timeoutMs?: number }): AnswerModels {
  const http = httpClient({ baseUrl: opts.baseUrl, timeoutMs: opts.timeoutMs ?? 300_000, retries: 0 });
  // Keyed by a hash of the key (never the key itself); oldest first, so the first entry goes when full.
  const lists = new Map<string, { at: number; models: ModelWire[] }>();
  const keyHeader = (apiKey: string | undefined): Record<string, string> => (apiKey === undefined ? {} : { 'api-key': apiKey });

  async function modelsOf(apiKey: string | undefined, call: RequestOptions): Promise<ModelWire[]> {
    const id = apiKey === undefined ? undefined : createHash('sha256').update(apiKey).digest('hex');
    const cached = id === undefined ? undefined : lists.get(id);
    if (cached && Date.now() - cached.at < LIST_TTL_MS) return cached.models;
    const r = await http.request<{ data?: ModelWire[] }>('GET', `${PREFIX}/models`, { ...call, headers: keyHeader(apiKey) });
    const models = r.data ?? [];
    if (id !== undefined) {
      lists.delete(id);
      if (lists.size >= LIST_KEYS) lists.delete(lists.keys().next().value!);
      lists.set(id, { at: Date.now(), models });
    }
    return models;
  }

  return {
    async open(apiKey, id, call) {
      const m = (await modelsOf(apiKey, { requestId: call.requestId, signal: call.signal })).find((x) => x.id === id);
      if (!m) throw new NotFound(`The model '${id}' does not exist or this key may not use it`, { code: 'model_not_found' });
      if (m.status.toLowerCase() !== 'active') {
        throw new NotFound(`The model ${JSON.stringify(id)} is not available (${m.status})`, { code: 'model_deactivated' });
      }
      if (m.kind !== 'chat') throw new BadRequest(`${id} is a ${m.kind} model, not a chat model`, { code: 'model_not_chat' });
      return { id: m.id, contextLength: m.context_length, maxOutputTokens: m.max_output_tokens ?? undefined } satisfies ModelHandle;
    },
    async chat(handle, req, call) {
      const path = `${PREFIX}/azure/openai/deployments/${encodeURIComponent(handle.id)}/chat/completions`;
      const o: RequestOptions = {
        requestId: call.requestId, signal: call.signal, headers: keyHeader(req.apiKey), query: { 'api-version': API_VERSION },
        json: {
          messages: openAiMessages(req.messages, GATEWAY), temperature: req.temperature, max_tokens: req.maxTokens, stream: req.stream,
          ...(req.stream ? { stream_options: { include_usage: true } } : {}),
        },
      };
      if (!req.stream) return wholeOf(await http.request<CompletionWire>('POST', path, o));
      const chunks = http.stream<CompletionWire>('POST', path, o);
      // The first chunk (the assistant's role) comes once the gateway accepted the call: refusals throw here.
      return streamOf(await chunks.next(), chunks, call.signal);
    },
  };
}
