import type { IncomingMessage } from 'node:http';
import express, { type RequestHandler } from 'express';
import { JsonTooDeep, jsonTextTooDeep, MAX_JSON_DEPTH } from '../../core/shared/json-depth';

export interface JsonBodyOptions {
  limit: number;
  /** Content types read as JSON (default `application/json`). */
  type?: string | string[];
  /** A body that comes with no Content-Type is read as JSON too (what boto3 sends InvokeModel's body with). */
  untyped?: boolean;
  /** Only objects and arrays at the top (default true, express's). */
  strict?: boolean;
}

/** The body as text for the depth scan: UTF-8 is scanned as bytes; other charsets are decoded first. */
function textOf(body: Buffer, encoding: string | undefined): Buffer | string {
  if (!encoding || /^utf-?8$/i.test(encoding)) return body;
  try {
    return new TextDecoder(encoding).decode(body);
  } catch {
    return body;
  }
}

/** body-parser's test of a request: one of these media types (exact ones, parameters aside), or no Content-Type at all. */
function jsonOrUntyped(types: string | string[]) {
  const taken = new Set([types].flat().map((t) => t.toLowerCase()));
  return (req: IncomingMessage) => {
    const type = req.headers['content-type'];
    return !type || taken.has(type.split(';', 1)[0]!.trim().toLowerCase());
  };
}

/** body-parser's `type` for a body refused by the depth scan (see bodyTooDeep). */
const TOO_DEEP = 'entity.too.deep';

/** The refusal of a body that nests too deep, from the error body-parser passes on; undefined for any other error. */
export const bodyTooDeep = (err: unknown): JsonTooDeep | undefined =>
  ((err as { type?: unknown } | null)?.type === TOO_DEEP ? new JsonTooDeep(MAX_JSON_DEPTH, 'The request body') : undefined);

/**
 * express.json for every endpoint that reads JSON bodies (the REST routes, the GraphQL servers):
 * the raw body is scanned once before it is parsed, and a body nesting deeper than MAX_JSON_DEPTH
 * is refused (JsonTooDeep, a 400 in the route's own error format) instead of reaching code that
 * walks it recursively and overflows the stack.
 */
export function jsonBody(opts: JsonBodyOptions): RequestHandler {
  return express.json({
    limit: opts.limit,
    strict: opts.strict ?? true,
    type: opts.untyped ? jsonOrUntyped(opts.type ?? 'application/json') : opts.type ?? 'application/json',
    // body-parser passes what is thrown here on as the request's error after setting its `status`
    // and `expose` (which a PlatformError cannot take: a plain error carries our `type` instead).
    verify: (_req, _res, body, encoding) => {
      if (jsonTextTooDeep(textOf(body, encoding))) throw Object.assign(new Error('JSON body too deep'), { type: TOO_DEEP });
    },
  });
}
