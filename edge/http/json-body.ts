import type { IncomingMessage } from 'node:http';
import express, { type RequestHandler } from 'express';
import { JsonTooDeep, jsonTextTooDeep, MAX_JSON_DEPTH } from '../../core/shared/json-depth';
import { inItsTurn } from '../../core/shared/turns';

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
    return !type || taken.has(type.split(';', 1)[0].trim().toLowerCase());
  };
}

/** body-parser's `type` for a body refused by the depth scan (see bodyTooDeep). */
const TOO_DEEP = 'entity.too.deep';

/** The refusal of a body that nests too deep, from the error body-parser passes on; undefined for any other error. */
export const bodyTooDeep = (err: unknown): JsonTooDeep | undefined =>
  (err as { type?: unknown } | null)?.type === TOO_DEEP ? new JsonTooDeep(MAX_JSON_DEPTH, 'The request body') : undefined;

/** Bodies over this many bytes are parsed in a turn of the event loop of their own (core/shared/turns.ts). */
export const LARGE_BODY_BYTES = 64 * 1024;

/** The charset a request names, lower-cased (none: undefined). */
const charsetOf = (req: IncomingMessage) => {
  const type = req.headers['content-type'];
  // No parameters, no charset (the common `application/json`): no pattern run.
  return type?.includes(';') ? /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(type)?.[1]?.toLowerCase() : undefined;
};

/** body-parser's refusal of text that is not JSON (or not an object or array at the top, when strict). */
const unparsable = (message: string, body: string) =>
  Object.assign(new SyntaxError(message), { status: 400, statusCode: 400, expose: true, type: 'entity.parse.failed', body });

/** JSON.parse as express.json parses: an empty body is `{}`; strict takes only an object or an array at the top. */
function parseJson(text: string, strict: boolean): unknown {
  if (!text.length) return {};
  if (strict && !/^[ \t\n\r]*[[{]/.test(text)) throw unparsable('Unexpected token: a JSON body is an object or an array', text);
  try {
    return JSON.parse(text);
  } catch (e) {
    throw unparsable((e as Error).message, text);
  }
}

/** `application/json`, in UTF-8 when a charset is named: the Content-Type the lean reader takes. */
const PLAIN_JSON = /^application\/json[ \t]*(?:;[ \t]*charset[ \t]*=[ \t]*(?:utf-?8|"utf-?8")[ \t]*)?$/i;

/** An error as body-parser raises it (http-errors' fields), which edge/http/errors.ts maps by its `type`. */
const bodyError = (status: number, message: string, type: string) =>
  Object.assign(new Error(message), { status, statusCode: status, expose: true, type });

/**
 * Reads a small plain JSON body as body-parser would, without its generic machinery (media type
 * and charset parsing, decoders, its debug calls), which cost as much as the rest of a small
 * GraphQL query's answer: a body of Content-Length at most `max` bytes, no Content-Encoding or
 * Transfer-Encoding, Content-Type `application/json` (optionally `charset=utf-8`). Says false,
 * having touched nothing, for any other request.
 */
function leanRead(req: IncomingMessage, max: number, done: (err: unknown, body?: Buffer) => void): boolean {
  const h = req.headers;
  const declared = h['content-length'];
  if (declared === undefined || h['transfer-encoding'] !== undefined || h['content-encoding'] !== undefined) return false;
  const length = Number(declared);
  if (!(length <= max) || req.complete || !req.readable || !PLAIN_JSON.test(h['content-type'] ?? '')) return false;
  const chunks: Buffer[] = [];
  let received = 0;
  let settled = false;
  const settle = (err: unknown, body?: Buffer) => {
    if (settled) return;
    settled = true;
    req.off('data', onData).off('end', onEnd).off('error', onGone).off('close', onGone);
    done(err, body);
  };
  const onData = (chunk: Buffer) => {
    received += chunk.length;
    chunks.push(chunk);
  };
  const onEnd = () =>
    received === length
      ? settle(undefined, chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, received))
      : settle(bodyError(400, 'request size did not match content length', 'request.size.invalid'));
  // A client that left: Node destroys its request with an error ('aborted', ECONNRESET), then closes it; body-parser's error either way.
  const onGone = () => settle(bodyError(400, 'request aborted', 'request.aborted'));
  req.on('data', onData).on('end', onEnd).on('error', onGone).on('close', onGone);
  return true;
}

/**
 * The JSON body parser of every endpoint that reads JSON bodies (the REST routes, the GraphQL
 * servers), as express.json: the raw body is scanned once before it is parsed, and a body nesting
 * deeper than MAX_JSON_DEPTH is refused (JsonTooDeep, a 400 in the route's own error format)
 * instead of reaching code that walks it recursively and overflows the stack. A UTF-8 body over
 * LARGE_BODY_BYTES is parsed in its own turn of the event loop (core/shared/turns.ts), one at a time, and what
 * the route does with it synchronously follows in that turn; bodies in other charsets (UTF-16) go
 * through express.json as they always did.
 */
export function jsonBody(opts: JsonBodyOptions): RequestHandler {
  const strict = opts.strict ?? true;
  const common = {
    limit: opts.limit,
    type: opts.untyped ? jsonOrUntyped(opts.type ?? 'application/json') : (opts.type ?? 'application/json'),
    // body-parser passes what is thrown here on as the request's error after setting its `status`
    // and `expose` (which a PlatformError cannot take: a plain error carries our `type` instead).
    verify: (_req: IncomingMessage, _res: unknown, body: Buffer, encoding: string) => {
      if (jsonTextTooDeep(textOf(body, encoding))) throw Object.assign(new Error('JSON body too deep'), { type: TOO_DEEP });
    },
  };
  const json = express.json({ ...common, strict });
  const raw = express.raw(common);
  // The lean reader (leanRead) for bodies small enough to parse in line, when `application/json` is read as JSON here.
  const lean = [opts.type ?? 'application/json'].flat().some((t) => typeof t === 'string' && t.toLowerCase() === 'application/json');
  const leanMax = Math.min(opts.limit, LARGE_BODY_BYTES);
  return (req, res, next) => {
    const charset = charsetOf(req);
    if (charset && !/^utf-?8$/.test(charset)) return json(req, res, next);
    const read = (err: unknown, bytes?: Buffer) => {
      if (err || !bytes) return next(err);
      try {
        common.verify(req, res, bytes, 'utf-8');
      } catch (e) {
        // body-parser's status for a body its verify refused.
        return next(Object.assign(e as Error, { status: 403, statusCode: 403, expose: true, body: bytes }));
      }
      parsed(bytes);
    };
    if (lean && leanRead(req, leanMax, read)) return;
    raw(req, res, (err?: unknown) => {
      if (err || !Buffer.isBuffer(req.body)) return next(err);
      parsed(req.body);
    });
    function parsed(bytes: Buffer) {
      const parse = () => {
        try {
          // As body-parser decodes UTF-8: a byte order mark is not part of the text.
          const text = bytes.toString('utf8');
          req.body = parseJson(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text, strict);
        } catch (e) {
          return next(e);
        }
        next();
      };
      if (bytes.length > LARGE_BODY_BYTES) inItsTurn(parse);
      else parse();
    }
  };
}
