import type { Request } from 'express';
import { z } from 'zod';
import type { CatalogModel } from '../../core/models/catalog/catalog';
import { InvalidParam } from '../../core/models/vendors/openai';
import type { KeyCaller, ModelsService } from '../../core/models/service';
import type { Ctx } from '../../core/shared/context';
import { ValidationFailed, type PlatformError } from '../../core/shared/errors';
import { parseInput } from '../../core/shared/validation';
import type { ErrorBody } from '../shared/http-errors';
import type { Json } from '../shared/openapi-schemas';
import { modelParam } from './docs';

/**
 * The OpenAI wire's doors: one handler per operation (chat completions, embeddings, images,
 * transcriptions) is mounted at each, and the door says where the call's path starts, where its
 * model comes from and how its errors read:
 * - group A, Azure OpenAI's deployments: `/azure/openai/deployments/{model}/...?api-version=` (required);
 * - OpenAI's own layout at the base URL (`/chat/completions`, model in the body);
 * - Azure's v1 layout (`/azure/openai/v1/...`, model in the body, `api-version` optional), also
 *   without `/v1`: `@ai-sdk/azure` adds it only for hosts named `*.openai.azure.com`.
 */
export { InvalidParam };

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'invalid_request_error',
  429: 'rate_limit_error',
};

const wireError = (err: PlatformError, status: number, param: string | null) => ({
  error: { message: err.message, type: ERROR_TYPES[status] ?? 'api_error', param, code: err.code ?? String(status) },
});
const paramOf = (err: PlatformError) => (err as { param?: string }).param ?? null;

export const azureErrorBody: ErrorBody = (err, status) => wireError(err, status, paramOf(err));

const MODEL_CODES = new Set(['model_not_found', 'model_deactivated', 'model_not_allowed']);

/** OpenAI's: a model named in the body that cannot be used names `model` as the param at fault. */
export const openAiErrorBody: ErrorBody = (err, status) => wireError(err, status, MODEL_CODES.has(err.code ?? '') ? 'model' : paramOf(err));

/** A 400 as the vendor words it, naming the first bad field, instead of FastAPI's 422. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  try {
    return parseInput(schema, body ?? {});
  } catch (err) {
    if (!(err instanceof ValidationFailed)) throw err;
    const first = err.issues[0];
    throw new InvalidParam(`${first.msg}: '${first.loc.join('.')}'`, first.loc.join('.'));
  }
}

export const ApiVersion = z.object({ 'api-version': z.string().min(1).optional() });

export interface Door {
  /** The operation's path at this door: `/chat/completions` becomes the route's path. */
  path(operation: string): string;
  /** How usage names the route: `azure` or `openai` (`azure.chat.completions`). */
  vendor: 'azure' | 'openai';
  tags: string[];
  query: z.ZodObject;
  errorBody: ErrorBody;
  /** The model is in the path: it can be checked before a body (an upload) is read. */
  modelInPath: boolean;
  /** The call's model (its key already the caller's): 400 without one, then 404 or 403. */
  modelOf(models: ModelsService, ctx: Ctx<KeyCaller>, req: Request, apiVersion: string | undefined, body: unknown): Promise<CatalogModel>;
  /** OpenAPI: the parameters besides the body, with `example` as the model. */
  params(example: string): Record<string, Json>;
}

const bodyModel = async (models: ModelsService, ctx: Ctx<KeyCaller>, body: unknown) => {
  const id = typeof body === 'object' && body !== null ? (body as { model?: unknown }).model : undefined;
  if (typeof id !== 'string' || !id) throw new InvalidParam('You must provide a model parameter.', 'model', 'missing_model');
  return models.model({ id }, ctx);
};

export const DEPLOYMENTS: Door = {
  path: (operation) => `/azure/openai/deployments/:model${operation}`,
  vendor: 'azure',
  tags: ['group A'],
  query: ApiVersion,
  errorBody: azureErrorBody,
  modelInPath: true,
  async modelOf(models, ctx, req, apiVersion) {
    if (!apiVersion)
      throw new InvalidParam(
        'The api-version query parameter (?api-version=) is required for all requests.',
        'api-version',
        'MissingApiVersionParameter',
      );
    return models.model({ id: String(req.params.model) }, ctx);
  },
  params: (example) => ({
    ...modelParam(example),
    'api-version': {
      required: true,
      description: 'Azure OpenAI API version (date-based; a preview suffix is accepted)',
      example: '2024-10-21',
    },
  }),
};

export const OPENAI: Door = {
  path: (operation) => operation,
  vendor: 'openai',
  tags: ['OpenAI'],
  query: z.object({}),
  errorBody: openAiErrorBody,
  modelInPath: false,
  modelOf: (models, ctx, _req, _v, body) => bodyModel(models, ctx, body),
  params: () => ({}),
};

/** Azure's v1 layout under `base` (`/azure/openai/v1`, or `/azure/openai` as @ai-sdk/azure calls it here). */
export const azureV1 = (base: string): Door => ({
  path: (operation) => `${base}${operation}`,
  vendor: 'azure',
  tags: ['group A (v1)'],
  query: ApiVersion,
  errorBody: openAiErrorBody,
  modelInPath: false,
  modelOf: (models, ctx, _req, _v, body) => bodyModel(models, ctx, body),
  params: () => ({ 'api-version': { description: 'Optional on the v1 layout (`v1`, `preview`, or none)', example: 'v1' } }),
});
