import type { Ctx } from '../../core/shared/context';
import { PlatformError } from '../../core/shared/errors';
import type { CacheOutcome } from '../../core/models/answers/cache';
import { anthropicCountBody } from '../../core/models/vendors/anthropic';
import type { CatalogModel } from '../../core/models/catalog/catalog';
import type { Transcript } from '../../core/models/neutral';
import { DeactivatedModel, ModelNotAllowed, UnknownModel } from '../../core/models/errors';
import { chatBody } from '../../core/models/client-wire';
import { fieldsOf } from '../../core/models/given';
import type { ChatFields, Metered, ModelsService } from '../../core/models/service';
import type { UsageTotals } from '../../core/models/usage/usage';
import { httpClient, type HttpClientOptions, type RequestOptions } from '../shared/http';
import { API_VERSION, PREFIX, streamOf, wholeOf, type CompletionWire } from './wire';

/**
 * The caller of a gateway reached over REST: the `api-key` header itself (key and options), sent
 * with every call. The gateway elsewhere verifies it, so an unknown key or a bad option is refused
 * by the first call, with the error the gateway in process would raise.
 */
export interface RemoteKeyCaller {
  header: string;
}

/** A model of the catalog listing (`GET /proxy/api/v1/models`). */
interface ModelWire {
  id: string;
  owned_by: string;
  group: CatalogModel['group'];
  kind: CatalogModel['kind'];
  status: string;
  context_length: number;
  dimensions: number | null;
  max_output_tokens: number | null;
  input_kinds: CatalogModel['inputKinds'];
  price: { input_per_million_tokens: number; output_per_million_tokens: number };
}

/** What the listing says of a model; of its upstream, only the provider (the rest is the gateway's secret). */
const modelOf = (m: ModelWire): CatalogModel => ({
  id: m.id,
  group: m.group,
  kind: m.kind,
  upstream: { provider: m.owned_by as CatalogModel['upstream']['provider'] },
  contextLength: m.context_length,
  ...(m.dimensions !== null && { dimensions: m.dimensions }),
  ...(m.max_output_tokens !== null && { maxOutputTokens: m.max_output_tokens }),
  price: { inputPerMillion: m.price.input_per_million_tokens, outputPerMillion: m.price.output_per_million_tokens },
  status: m.status,
  inputKinds: m.input_kinds,
});

const isActive = (m: CatalogModel) => m.status.toLowerCase() === 'active';

/**
 * The model gateway over its REST paths (the catalog, usage, the Azure OpenAI wire of group A and
 * Anthropic's token count),
 * for a deployment where it runs elsewhere: the gateway's keys, limits, cache, guardrails and usage
 * apply there, and its refusals come back as the same platform errors. An input given as a
 * reading (`read`) is read here, and a reading that fails is recorded nowhere: the call never
 * reached the gateway, which records the calls it refuses.
 */
export function modelsClient(opts: HttpClientOptions): ModelsService<RemoteKeyCaller> {
  const http = httpClient({ timeoutMs: 300_000, retries: 0, ...opts });
  const as = ({ caller, requestId, signal }: Ctx<RemoteKeyCaller>): RequestOptions => ({
    headers: { 'api-key': caller.header },
    requestId,
    signal,
  });
  const deployment = (model: CatalogModel, what: string) => `${PREFIX}/azure/openai/deployments/${encodeURIComponent(model.id)}/${what}`;
  const azure = { 'api-version': API_VERSION };
  const list = async (ctx: Ctx<RemoteKeyCaller>) =>
    (await http.request<{ data: ModelWire[] }>('GET', `${PREFIX}/models`, as(ctx))).data.map(modelOf);

  return {
    listModels: (_input, ctx) => list(ctx),
    async model({ id }, ctx) {
      const m = (await list(ctx)).find((x) => x.id === id);
      if (m) {
        if (!isActive(m)) throw new DeactivatedModel(id, m.status);
        return m;
      }
      // Not listed: unknown, or not for this key. The Gemini route's model lookup tells which (its
      // error body has no code of ours, so the refusal is raised here as the gateway raises it).
      try {
        await http.request('GET', `${PREFIX}/gemini/models/${encodeURIComponent(id)}`, as(ctx));
      } catch (err) {
        if (err instanceof PlatformError && err.kind === 'forbidden') throw new ModelNotAllowed(id);
        if (!(err instanceof PlatformError) || err.kind !== 'not_found') throw err;
      }
      throw new UnknownModel(id);
    },
    async chat(input, ctx) {
      // The gateway names the route itself (`azure.chat.completions`) when it meters the call.
      const { model } = input;
      const { model: _m, route: _r, ...request }: ChatFields & Partial<Metered> = await fieldsOf(input);
      let cache: CacheOutcome = 'MISS';
      let guard = 'n/a';
      const o: RequestOptions = {
        ...as(ctx),
        query: azure,
        json: chatBody({ ...request, model: model.id }, 'the model gateway', { maxTokensField: 'max_tokens' }),
        onHeaders: (h) => {
          cache = (h.get('x-cache') as CacheOutcome | null) ?? 'MISS';
          guard = h.get('x-guard') ?? 'n/a';
        },
      };
      if (request.stream === false) {
        const whole = wholeOf(await http.request<CompletionWire>('POST', deployment(model, 'chat/completions'), o));
        return { ...whole, cache, guard };
      }
      const chunks = http.stream<CompletionWire>('POST', deployment(model, 'chat/completions'), o);
      // The first chunk comes once the gateway accepted the call: its refusals throw here.
      const first = await chunks.next();
      return { ...streamOf(first, chunks, ctx.signal), cache, guard };
    },
    async embed(input, ctx) {
      const { model } = input;
      const { inputs, dimensions } = await fieldsOf(input);
      const r = await http.request<{ data: { embedding: number[] }[]; usage: { prompt_tokens: number } }>(
        'POST',
        deployment(model, 'embeddings'),
        {
          ...as(ctx),
          query: azure,
          json: { input: inputs, ...(dimensions !== undefined && { dimensions }) },
        },
      );
      return { vectors: r.data.map((d) => Float32Array.from(d.embedding)), promptTokens: r.usage.prompt_tokens };
    },
    async generateImage(input, ctx) {
      const { model } = input;
      const { prompt, size, quality, style } = await fieldsOf(input);
      // As a data URL, which also says the picture's type.
      const r = await http.request<{ data: { url: string; revised_prompt?: string }[] }>('POST', deployment(model, 'images/generations'), {
        ...as(ctx),
        query: azure,
        json: { prompt, n: 1, size, quality, style, response_format: 'url' },
      });
      const { url, revised_prompt: revisedPrompt } = r.data[0];
      const [, mimeType = 'application/octet-stream', b64 = ''] = /^data:([^;,]+);base64,(.*)$/s.exec(url) ?? [];
      return { b64, mimeType, ...(revisedPrompt !== undefined && { revisedPrompt }) };
    },
    async transcribe(input, ctx): Promise<Transcript> {
      const { model } = input;
      const { audio, filename, mimeType, temperature, language, prompt } = await fieldsOf(input);
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(audio)], { type: mimeType }), filename);
      form.append('response_format', 'verbose_json');
      if (temperature !== undefined) form.append('temperature', String(temperature));
      if (language !== undefined) form.append('language', language);
      if (prompt !== undefined) form.append('prompt', prompt);
      const r = await http.request<{ text: string; language: string | null; duration: number | null; segments: Transcript['segments'] }>(
        'POST',
        deployment(model, 'audio/transcriptions'),
        { ...as(ctx), query: azure, multipart: form },
      );
      return {
        text: r.text,
        ...(r.language !== null && { language: r.language }),
        ...(r.duration !== null && { duration: r.duration }),
        ...(r.segments?.length ? { segments: r.segments } : {}),
      };
    },
    async countTokens(input, ctx) {
      const { model } = input;
      const { messages, tools } = await fieldsOf(input);
      // Through the gateway's Anthropic door (`/v1/messages/count_tokens`), which counts with the same tokenizer.
      const r = await http.request<{ input_tokens: number }>('POST', `${PREFIX}/anthropic/v1/messages/count_tokens`, {
        ...as(ctx),
        json: anthropicCountBody(model.id, messages, tools),
      });
      return { tokens: r.input_tokens };
    },
    async usage({ from, to }, ctx) {
      const r = await http.request<{ totals: UsageTotals; by_model: (UsageTotals & { model: string })[] }>('GET', `${PREFIX}/usage`, {
        ...as(ctx),
        query: { from: from.toISOString(), to: to.toISOString() },
      });
      return { totals: r.totals, byModel: r.by_model };
    },
  };
}
