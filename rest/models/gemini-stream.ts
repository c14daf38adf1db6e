import type { Response } from 'express';
import { InvalidArgument } from '../../core/models/vendors/gemini';
import { InternalError, type PlatformError } from '../../core/shared/errors';
import { STATUS, toPlatformError } from '../../edge/http/errors';
import { pipeStream } from '../../edge/http/event-stream';
import { JSON_ARRAY_HEAD, VENDOR_SSE_HEAD, jsonArray, sseEvent } from '../../edge/http/stream-frames';
import type { ErrorBody } from '../shared/http-errors';

/**
 * Google's error format, `{"error": {"code", "message", "status"}}` with its canonical status
 * names, and the two ways Gemini streams: server-sent events (`?alt=sse`, what the SDKs ask for)
 * and, without it, one JSON array whose elements arrive as they are made.
 */
const STATUS_NAMES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  // google.rpc has no "method not allowed"; the method is not implemented on that path.
  405: 'UNIMPLEMENTED',
  409: 'ABORTED',
  413: 'INVALID_ARGUMENT',
  415: 'INVALID_ARGUMENT',
  422: 'INVALID_ARGUMENT',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  502: 'UNAVAILABLE',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

/**
 * Google's details: the fields a 400 is about (`google.rpc.BadRequest`), the gateway's machine code
 * (`ErrorInfo.reason`, e.g. `guardrail_violation`) and how long to wait after a 429 (`RetryInfo`).
 */
function detailsOf(err: PlatformError): Record<string, unknown>[] {
  const details: Record<string, unknown>[] = [];
  if (err instanceof InvalidArgument)
    details.push({ '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: err.fieldViolations });
  if (err.code) details.push({ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: err.code, domain: 'gateway' });
  if ('retryAfterSeconds' in err && typeof err.retryAfterSeconds === 'number') {
    details.push({ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${err.retryAfterSeconds}s` });
  }
  return details;
}

export const geminiErrorBody: ErrorBody = (err, status) => {
  const details = detailsOf(err);
  return {
    error: {
      code: status,
      message: err.message,
      status: STATUS_NAMES[status] ?? (status >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT'),
      ...(details.length ? { details } : {}),
    },
  };
};

/** A failure midway, as the error object the SDKs throw from a streamed chunk (never a stack). */
function streamedError(err: unknown) {
  const e = toPlatformError(err);
  return geminiErrorBody(e.expose ? e : new InternalError('Internal server error'), STATUS[e.kind]);
}

/**
 * Streams GenerateContentResponse objects as `data: {...}` events (`sse`) or as the elements of one
 * JSON array (`json`), with the edge's writer. Nothing is written before the first object, so a
 * failure before it still answers with its status; a failure midway is Google's error object as the
 * last event (element). Stops reading when the caller goes away. No heartbeat: the Python
 * google-genai SDK reads a line that is not `data: ` as part of a JSON error, so an SSE comment
 * would break it (docs/decisions.md, Issue 31: streams).
 */
export function geminiStream(res: Response, format: 'sse' | 'json', objects: AsyncIterable<unknown>): Promise<void> {
  const array = jsonArray();
  const frame = (value: unknown) =>
    format === 'sse' ? sseEvent(JSON.stringify(value), undefined, '\r\n') : array.element(JSON.stringify(value));
  return pipeStream(res, objects, {
    headers: format === 'sse' ? VENDOR_SSE_HEAD : JSON_ARRAY_HEAD,
    frame,
    failure: (err) => frame(streamedError(err)),
    last: () => (format === 'json' ? array.close() : undefined),
  });
}
