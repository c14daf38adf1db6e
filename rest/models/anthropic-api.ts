import { randomUUID } from 'node:crypto';
import type { Request, Response } from 'express';
import { z } from 'zod';
import { BadRequest, NotFound } from '../../core/shared/errors';
import { isPlainObject } from '../../core/shared/validation';
import type { Ctx } from '../../core/shared/context';
import type { CatalogModel } from '../../core/models/catalog/catalog';
import { CountTokensRequest, MessagesRequest, anthropicPrompt } from '../../core/models/vendors/anthropic';
import type { KeyCaller, ModelsService } from '../../core/models/service';
import { requestIdOf } from '../shared/http-errors';
import type { Route } from '../shared/routes';
import { anthropicAnswer, anthropicErrorBody } from './anthropic';
import { wireBody } from './bedrock-common';
import { define, lmKey } from './common';
import { anthropicApiDocs } from './docs-anthropic';

/**
 * Anthropic's own API, so `new Anthropic({ baseURL: '<base>/proxy/api/v1/anthropic', apiKey })`
 * works unchanged: `POST /v1/messages` (streamed with `stream: true`), `POST /v1/messages/count_tokens`,
 * `GET /v1/models` and `GET /v1/models/{id}`, for any chat model of the catalog (the body's `model`
 * is its id). The key comes in `x-api-key` or `Authorization: Bearer` (what the SDK sends for
 * `apiKey` and `authToken`); `anthropic-version` is accepted whatever it says. Errors and the
 * `request-id` header are Anthropic's.
 */
const BASE = '/anthropic/v1';

const requestIdHeader = (req: Request, res: Response) => void res.set('request-id', requestIdOf(req) ?? randomUUID());

/** The body's model, before the body is read: the call is metered under it (400 without one, then 404/403). */
async function modelOf(models: ModelsService, body: unknown, ctx: Ctx<KeyCaller>): Promise<CatalogModel> {
  const id = isPlainObject(body) ? body.model : undefined;
  if (typeof id !== 'string' || !id) throw new BadRequest('model: Field required', { code: 'invalid_request' });
  return models.model({ id }, ctx);
}

/** The catalog has no release dates: every model says the epoch. */
const CREATED = new Date(0).toISOString();
const modelInfo = (m: CatalogModel) => ({
  type: 'model',
  id: m.id,
  display_name: m.id,
  created_at: CREATED,
  max_input_tokens: m.contextLength,
  max_tokens: m.maxOutputTokens ?? null,
  capabilities: null,
  deprecated_at: null,
  lifecycle: 'active',
  line: null,
  retires_at: null,
});

const ListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(1000).default(20),
  after_id: z.string().min(1).optional(),
  before_id: z.string().min(1).optional(),
});

/** A page of the list: `limit` models after `after_id`, or the last `limit` before `before_id`, in catalog order. */
function page(all: CatalogModel[], q: z.output<typeof ListQuery>) {
  const at = (id: string) => {
    const i = all.findIndex((m) => m.id === id);
    if (i < 0) throw new BadRequest(`No model ${id} in this list`, { code: 'invalid_request' });
    return i;
  };
  let from = 0;
  let to: number;
  if (q.before_id !== undefined) {
    to = at(q.before_id);
    from = Math.max(0, to - q.limit);
  } else {
    if (q.after_id !== undefined) from = at(q.after_id) + 1;
    to = Math.min(all.length, from + q.limit);
  }
  const data = all.slice(from, to).map(modelInfo);
  return {
    data,
    has_more: q.before_id !== undefined ? from > 0 : to < all.length,
    first_id: data[0]?.id ?? null,
    last_id: data.at(-1)?.id ?? null,
  };
}

const chatModels = async (models: ModelsService, ctx: Ctx<KeyCaller>) =>
  (await models.listModels({}, ctx)).filter((m) => m.kind === 'chat');

export function anthropicApiRoutes(models: ModelsService): Route[] {
  const common = { tags: ['Anthropic API'], credential: lmKey, errorBody: anthropicErrorBody };
  return [
    define({
      ...common,
      method: 'post',
      path: `${BASE}/messages`,
      input: { body: z.unknown() },
      docs: anthropicApiDocs.messages,
      summary: "Anthropic's Messages API (`stream: true` for server-sent events), any chat model of the catalog",
      responses: { 200: { description: 'A message object, or message_start ... message_stop events' } },
      handle: async (input, { req, res, ctx }) => {
        requestIdHeader(req, res);
        const m = { model: await modelOf(models, input.body, ctx), route: 'anthropic.messages' };
        return anthropicAnswer(models, m, () => wireBody(MessagesRequest, input.body), res, ctx);
      },
    }),
    define({
      ...common,
      method: 'post',
      path: `${BASE}/messages/count_tokens`,
      input: { body: z.unknown() },
      docs: anthropicApiDocs.countTokens,
      summary: "Anthropic's token count: the prompt's tokens (messages, system, tools) as the gateway counts them",
      responses: { 200: { description: '`{"input_tokens": n}`' } },
      handle: async (input, { req, res, ctx }) => {
        requestIdHeader(req, res);
        const m = { model: await modelOf(models, input.body, ctx), route: 'anthropic.count_tokens' };
        return {
          input_tokens: (await models.countTokens({ ...m, read: () => anthropicPrompt(wireBody(CountTokensRequest, input.body)) }, ctx))
            .tokens,
        };
      },
    }),
    define({
      ...common,
      method: 'get',
      path: `${BASE}/models`,
      docs: anthropicApiDocs.models,
      summary: 'Anthropic models list: the chat models this key may use (`limit`, `after_id`, `before_id`)',
      responses: { 200: { description: '`{"data", "has_more", "first_id", "last_id"}`' } },
      handle: async (_input, { req, res, ctx }) => {
        requestIdHeader(req, res);
        // Read here, not as the route's input: a bad value is Anthropic's 400, not a 422.
        return page(await chatModels(models, ctx), wireBody(ListQuery, req.query));
      },
    }),
    define({
      ...common,
      method: 'get',
      path: `${BASE}/models/:model_id`,
      docs: anthropicApiDocs.model,
      summary: 'Anthropic model: one chat model of the catalog',
      responses: { 200: { description: 'A model (`type: "model"`)' } },
      handle: async (_input, { req, res, ctx }) => {
        requestIdHeader(req, res);
        const model = await models.model({ id: String(req.params.model_id) }, ctx);
        if (model.kind !== 'chat')
          throw new NotFound(`The model ${model.id} is not a chat model: the Messages API cannot call it`, { code: 'model_not_found' });
        return modelInfo(model);
      },
    }),
  ];
}
