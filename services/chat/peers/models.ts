import { createHash } from 'node:crypto';
import { API_VERSION, GATEWAY, PREFIX, streamOf, wholeOf, type CompletionWire } from '../../../clients/models/wire';
import { httpClient, type RequestOptions } from '../../../clients/shared/http';
import type { AnswerModels, ModelHandle } from '../../../core/chat/ports';
import { openAiMessages, openAiTool } from '../../../core/models/client-wire';
import type { KeyCaller, ModelsService } from '../../../core/models/service';
import { BadRequest, NotFound } from '../../../core/shared/errors';
import type { ModelsInstance } from '../../models';

// The chat proxy's adapters to the model gateway (its peer): in process when the gateway runs
// here, over its REST paths when it runs elsewhere.

/** A model of the gateway's catalog listing (GET /proxy/api/v1/models), the fields the proxy reads. */
interface ModelWire {
  id: string;
  kind: string;
  status: string;
  context_length: number;
  max_output_tokens?: number | null;
}

/** Each answer needs the key's models; a short memory of them saves a round trip per answer. */
const LIST_TTL_MS = 30_000;
const LIST_KEYS = 1000;

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
      const m = (await modelsOf(apiKey, { requestId: call.requestId, signal: call.signal, trace: call.trace })).find((x) => x.id === id);
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
        requestId: call.requestId,
        signal: call.signal,
        trace: call.trace,
        headers: keyHeader(req.apiKey),
        query: { 'api-version': API_VERSION },
        json: {
          messages: openAiMessages(req.messages, GATEWAY),
          temperature: req.temperature,
          max_tokens: req.maxTokens,
          stream: req.stream,
          ...(req.tools?.length && { tools: req.tools.map(openAiTool) }),
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

/**
 * The model gateway of this process, called with the user's LM key, which `keyCaller` (the gateway's
 * own declared credential) turns into its caller: its keys, limits, cache, guardrails and usage apply.
 */
export const inProcessModels = (models: ModelsService, keyCaller: (apiKey: string | undefined) => Promise<KeyCaller>): AnswerModels => {
  const resolve = async (apiKey: string | undefined, id: string) => {
    const caller = await keyCaller(apiKey);
    const model = await models.model({ id }, { caller });
    if (model.kind !== 'chat') throw new BadRequest(`${id} is a ${model.kind} model, not a chat model`, { code: 'model_not_chat' });
    return { caller, model };
  };
  return {
    async open(apiKey, id) {
      const { model } = await resolve(apiKey, id);
      return { id: model.id, contextLength: model.contextLength, maxOutputTokens: model.maxOutputTokens };
    },
    async chat(handle, req, call) {
      const { caller, model } = await resolve(req.apiKey, handle.id);
      return models.chat(
        {
          model,
          route: req.route,
          messages: req.messages,
          temperature: req.temperature,
          maxTokens: req.maxTokens,
          stream: req.stream,
          ...(req.tools?.length && { tools: req.tools }),
        },
        { ...call, caller },
      );
    },
  };
};

/** The model gateway of this process when it runs here, else the one at `baseUrl` (MODELS_URL, or PUBLIC_URL). */
export const modelsPeer = (models: ModelsInstance | undefined, baseUrl: string): AnswerModels =>
  models ? inProcessModels(models.service, models.keyCaller) : restAnswerModels({ baseUrl });
