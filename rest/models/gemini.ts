import { opaqueId } from '../../core/shared/ids';
import type { Request } from 'express';
import { z } from 'zod';
import type { Ctx } from '../../core/shared/context';
import { NotFound } from '../../core/shared/errors';
import type { CatalogModel } from '../../core/models/catalog/catalog';
import {
  BatchEmbedContentsRequest,
  EmbedContentRequest,
  GenerateContentRequest,
  InvalidArgument,
  geminiBody,
  geminiChunks,
  geminiResponse,
  geminiToChat,
  textOnly,
} from '../../core/models/vendors/gemini';
import type { KeyCaller, Metered, ModelsService } from '../../core/models/service';
import { collect } from '../../core/models/collect';
import { define, gatewayHeaders } from './common';
import { geminiCallDocs, geminiListDocs, geminiModelDocs } from './docs-gemini';
import { geminiCountTokens } from './gemini-count';
import { geminiErrorBody, geminiStream } from './gemini-stream';
import type { Route, RouteContext } from '../shared/routes';

/**
 * Group B: Gemini's generateContent, streamGenerateContent (`?alt=sse` events, else one JSON
 * array), embedContent and batchEmbedContents, and its model list, in Google's wire format, errors
 * included. Served at `/gemini/models/...` and under the API versions the SDKs put in their paths
 * (`/gemini/v1beta/models/...`, `/gemini/v1/models/...`), so `@google/genai` works with only its
 * base URL (`.../proxy/api/v1/gemini`) and key changed.
 */
const VERSIONS = ['', '/v1beta', '/v1'];
const METHODS = ['generateContent', 'streamGenerateContent', 'embedContent', 'batchEmbedContents', 'countTokens'] as const;
type Method = (typeof METHODS)[number];

/** The LM key (with its options): `api-key`, else `x-goog-api-key` (what the SDKs send), else `?key=`. */
export function geminiKey(req: Request): { 'api-key': string | undefined } {
  const q = req.query.key;
  return { 'api-key': req.get('api-key') ?? req.get('x-goog-api-key') ?? (typeof q === 'string' ? q : undefined) };
}

/**
 * `local-chat:generateContent` as model and method. Express reads `:` in a path as a parameter, so
 * the route takes the whole segment and splits it at its last colon (a model id may hold one).
 */
function callOf(segment: string): { id: string; method: Method } {
  const at = segment.lastIndexOf(':');
  const method = METHODS.find((m) => m === segment.slice(at + 1));
  if (at <= 0 || !method) {
    throw new NotFound(`Method not found: '${segment.slice(at + 1)}'. This gateway serves ${METHODS.join(', ')}.`, {
      code: 'method_not_found',
    });
  }
  return { id: segment.slice(0, at), method };
}

const geminiModel = (m: CatalogModel) => ({
  name: `models/${m.id}`,
  baseModelId: m.id,
  version: '1',
  displayName: m.id,
  description: `${m.kind === 'chat' ? 'Chat' : 'Embedding'} model served by the gateway (${m.upstream.provider})`,
  inputTokenLimit: m.contextLength,
  outputTokenLimit: m.maxOutputTokens ?? (m.kind === 'chat' ? m.contextLength : 1),
  supportedGenerationMethods: m.kind === 'chat' ? ['generateContent', 'streamGenerateContent'] : ['embedContent', 'batchEmbedContents'],
});

// Only what these routes can call is listed: chat and embedding models.
const servedHere = (m: CatalogModel) => m.kind === 'chat' || m.kind === 'embedding';

export function geminiRoutes(models: ModelsService): Route[] {
  async function generate(m: Metered, body: unknown, stream: 'sse' | 'json' | undefined, { res, ctx }: RouteContext<KeyCaller>) {
    const answer = await models.chat(
      { ...m, read: () => ({ ...geminiToChat(geminiBody(GenerateContentRequest, body)), stream: stream !== undefined }) },
      ctx,
    );
    gatewayHeaders(res, answer);
    const meta = { responseId: opaqueId(), modelVersion: m.model.id };
    if (!stream) return geminiResponse(meta, await collect(answer));
    await geminiStream(res, stream, geminiChunks(meta, answer));
    return undefined;
  }

  /** One embedContent or several (batch): text parts only, one outputDimensionality, this path's model. */
  async function embed(m: Metered, read: () => EmbedContentRequest[], field: (i: number) => string, ctx: Ctx<KeyCaller>) {
    let dimensions: number | undefined;
    const { vectors } = await models.embed(
      {
        ...m,
        read: () => {
          const requests = read();
          dimensions = requests[0]?.outputDimensionality;
          const wrong = (i: number, f: string, description: string) => new InvalidArgument([{ field: `${field(i)}${f}`, description }]);
          requests.forEach((r, i) => {
            if (r.model !== undefined && r.model !== m.model.id && r.model !== `models/${m.model.id}`)
              throw wrong(i, 'model', `The model in the request does not match the path (models/${m.model.id})`);
            if (r.outputDimensionality !== dimensions)
              throw wrong(i, 'outputDimensionality', 'Every request of a batch must ask for the same outputDimensionality');
          });
          if (dimensions !== undefined && m.model.dimensions !== undefined && dimensions !== m.model.dimensions) {
            throw wrong(0, 'outputDimensionality', `This model makes ${m.model.dimensions}-dimensional vectors`);
          }
          return { inputs: requests.map((r, i) => textOnly(r.content.parts, `${field(i)}content`)), dimensions };
        },
      },
      ctx,
    );
    if (dimensions !== undefined && dimensions !== vectors[0]?.length) {
      throw new InvalidArgument([
        { field: `${field(0)}outputDimensionality`, description: `This model makes ${vectors[0]?.length}-dimensional vectors` },
      ]);
    }
    return vectors.map((v) => ({ values: Array.from(v) }));
  }

  async function dispatch(body: unknown, rc: RouteContext<KeyCaller>) {
    const { ctx } = rc;
    const { id, method } = callOf(String(rc.req.params.call));
    const m = { model: await models.model({ id }, ctx), route: `gemini.${method}` };
    switch (method) {
      case 'generateContent':
        return generate(m, body, undefined, rc);
      case 'streamGenerateContent':
        return generate(m, body, rc.req.query.alt === 'sse' ? 'sse' : 'json', rc);
      case 'embedContent': {
        const [embedding] = await embed(
          m,
          () => [geminiBody(EmbedContentRequest, body)],
          () => '',
          ctx,
        );
        return { embedding };
      }
      case 'batchEmbedContents':
        return {
          embeddings: await embed(
            m,
            () => geminiBody(BatchEmbedContentsRequest, body).requests,
            (i) => `requests[${i}].`,
            ctx,
          ),
        };
      case 'countTokens':
        return geminiCountTokens(models, m, body, ctx);
    }
  }

  const tags = (v: string) => [v ? "group B (the SDKs' versioned paths)" : 'group B'];
  return VERSIONS.flatMap((v) => [
    define({
      method: 'post',
      path: `/gemini${v}/models/:call`,
      tags: ['group B'],
      input: { body: z.unknown() },
      credential: geminiKey,
      errorBody: geminiErrorBody,
      docs: geminiCallDocs(`/gemini${v}`, tags(v)),
      summary: `Gemini ${v ? `${v.slice(1)} ` : ''}{model}:generateContent | :streamGenerateContent | :embedContent | :batchEmbedContents | :countTokens`,
      description:
        'The path segment is `<model>:<method>`. `?alt=sse` streams server-sent events, else one JSON array. ' +
        'The key comes in `api-key`, `x-goog-api-key` or `?key=`.',
      responses: { 200: { description: 'A GenerateContentResponse (or a stream of them), an embedding, or embeddings' } },
      handle: (input, rc) => dispatch(input.body, rc),
    }),
    define({
      method: 'get',
      path: `/gemini${v}/models`,
      tags: ['group B'],
      credential: geminiKey,
      errorBody: geminiErrorBody,
      docs: geminiListDocs(tags(v)),
      summary: `Gemini ${v ? `${v.slice(1)} ` : ''}models: the chat and embedding models this key may use`,
      responses: { 200: { description: '`{"models": [...]}`' } },
      handle: async (_input, { ctx }) => ({ models: (await models.listModels({}, ctx)).filter(servedHere).map(geminiModel) }),
    }),
    define({
      method: 'get',
      path: `/gemini${v}/models/:call`,
      tags: ['group B'],
      credential: geminiKey,
      errorBody: geminiErrorBody,
      docs: geminiModelDocs(`/gemini${v}`, tags(v)),
      summary: `Gemini ${v ? `${v.slice(1)} ` : ''}model: one model's limits and methods`,
      responses: { 200: { description: 'A Model' } },
      handle: async (_input, { req, ctx }) => {
        const model = await models.model({ id: String(req.params.call) }, ctx);
        if (!servedHere(model)) throw new NotFound(`The model ${model.id} is not served by the Gemini routes`, { code: 'model_not_found' });
        return geminiModel(model);
      },
    }),
  ]);
}
