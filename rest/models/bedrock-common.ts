import { randomUUID } from 'node:crypto';
import type { Request, Response } from 'express';
import type { z } from 'zod';
import { BadRequest, ValidationFailed, type PlatformError } from '../../core/shared/errors';
import type { KeyCaller, ModelsService } from '../../core/models/service';
import type { Ctx } from '../../core/shared/context';
import { parseInput } from '../../core/shared/validation';
import { STATUS, toPlatformError } from '../../edge/http/errors';
import { requestIdOf, type ErrorBody } from '../shared/http-errors';

/**
 * What the group C routes share: where the LM key comes from (Bedrock API keys are bearer tokens),
 * the model, bodies checked into a 400 naming the field, and Bedrock's error format.
 */
/** The model of a group C call (its key already the caller's): 400 without one, then 404/403. */
export async function groupC(models: ModelsService, ctx: Ctx<KeyCaller>, modelId: unknown, route: string) {
  if (typeof modelId !== 'string' || !modelId)
    throw new BadRequest('The modelId query parameter (?modelId=) is required', { code: 'missing_model_id' });
  return { model: await models.model({ id: modelId }, ctx), route };
}

/** The body against the vendor's schema: a 400 naming every bad field (`max_tokens: Field required`). */
export function wireBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  try {
    return parseInput(schema, body ?? {});
  } catch (err) {
    if (!(err instanceof ValidationFailed)) throw err;
    throw new BadRequest(err.issues.map((i) => `${i.loc.length ? i.loc.join('.') : 'body'}: ${i.msg}`).join('; '), {
      code: 'invalid_request',
    });
  }
}

/** The exception name the AWS SDKs map an error to (their `x-amzn-ErrorType`). */
export function bedrockErrorType(status: number): string {
  switch (status) {
    case 401:
      return 'UnrecognizedClientException';
    case 403:
      return 'AccessDeniedException';
    case 404:
      return 'ResourceNotFoundException';
    case 429:
      return 'ThrottlingException';
    case 502:
      return 'ModelErrorException';
    case 503:
      return 'ServiceUnavailableException';
    case 504:
      return 'ModelTimeoutException';
    default:
      return status >= 500 ? 'InternalServerException' : 'ValidationException';
  }
}

/**
 * Bedrock's `{"message"}`. `__type` names the exception too, for the errors raised before a handler
 * runs (a malformed or oversized body), which cannot set the header; `reason` is the gateway's code
 * (`guardrail_violation`, ...), not `code`, which the SDKs would read as the exception's name.
 */
export const bedrockErrorBody: ErrorBody = (err, status, res) => {
  // Also for errors raised before the handler's amzn() runs (the key, a body the parser refused).
  if (res && !res.headersSent)
    res.set({ 'x-amzn-ErrorType': bedrockErrorType(status), 'x-amzn-RequestId': requestIdOf(res.req) ?? randomUUID() });
  return { message: err.message, __type: bedrockErrorType(status), ...(err.code ? { reason: err.code } : {}) };
};

/** Runs a Bedrock-format handler: `x-amzn-RequestId` on every answer, `x-amzn-ErrorType` on errors. */
export async function amzn<T>(req: Request, res: Response, run: () => Promise<T>): Promise<T> {
  res.set('x-amzn-RequestId', requestIdOf(req) ?? randomUUID());
  try {
    return await run();
  } catch (err) {
    if (!res.headersSent) res.set('x-amzn-ErrorType', bedrockErrorType(STATUS[toPlatformError(err).kind]));
    throw err;
  }
}

/** A failure midway through an event stream, as the modeled exception event the SDKs throw. */
export function streamException(err: unknown): { type: string; payload: { message: string } & Record<string, unknown> } {
  const e: PlatformError = toPlatformError(err);
  const message = e.expose ? e.message : 'Internal server error';
  switch (e.kind) {
    case 'upstream':
    case 'upstream_timeout':
      return { type: 'modelStreamErrorException', payload: { message, originalStatusCode: STATUS[e.kind], originalMessage: message } };
    case 'rate_limited':
      return { type: 'throttlingException', payload: { message } };
    case 'bad_request':
      return { type: 'validationException', payload: { message } };
    default:
      return { type: 'internalServerException', payload: { message } };
  }
}
