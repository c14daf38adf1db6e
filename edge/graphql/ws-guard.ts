import type { Logger } from 'pino';
import type { WebSocket } from 'ws';
import { jsonTextTooDeep, MAX_JSON_DEPTH } from '../../core/shared/json-depth';

/**
 * Close codes of a refused graphql-ws socket (besides graphql-ws's own: 4400 a malformed message,
 * 4408 no connection_init in time, 4429 a second connection_init). The newest graphql-ws client
 * (6.4) gives up at once on 1009 and 4400; 4403 it retries `retryAttempts` times (5 by default),
 * since fresh connection parameters may be accepted, then reports the close.
 */
export const CLOSE = {
  /** RFC 6455: a message over the bound (connection_init over INIT_MAX_BYTES, any message over the body limit). */
  tooBig: 1009,
  /** graphql-ws's BadRequest: a message before the acknowledgement nesting deeper than MAX_JSON_DEPTH. */
  badRequest: 4400,
  /** graphql-ws's Forbidden: connection_init carried a credential that is not valid. */
  forbidden: 4403,
} as const;

/**
 * Largest connection_init message, in bytes (or the body limit when smaller). Its payload stands in
 * for the HTTP headers a browser cannot set on a WebSocket, so it is bounded as node bounds a
 * request's headers (16 KiB by default); an access token is about 1 KiB.
 */
export const INIT_MAX_BYTES = 16 * 1024;

export interface SocketGuardOptions {
  /** Largest message once the connection is acknowledged (BODY_LIMIT_BYTES). */
  maxPayloadBytes: number;
  log: Logger;
}

/** ws's receiver keeps its bound in a private field; its absence (another ws) leaves the bound as it was. */
type Receiver = { _maxPayload?: unknown };
const receiverOf = (ws: WebSocket): Receiver | undefined => {
  const r = (ws as unknown as { _receiver?: Receiver })._receiver;
  return typeof r?._maxPayload === 'number' ? r : undefined;
};

const lengthOf = (data: unknown): number => {
  if (Buffer.isBuffer(data) || data instanceof ArrayBuffer) return data.byteLength;
  if (Array.isArray(data)) return (data as Buffer[]).reduce((n, b) => n + b.byteLength, 0);
  return 0;
};

const textOf = (data: unknown): Buffer | string =>
  Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data as Buffer[]) : Buffer.from(data as ArrayBuffer);

export interface GuardedSocket {
  /** Lifts the bound on messages from INIT_MAX_BYTES to the body limit: call once connection_init is accepted. */
  acknowledged(): void;
}

/**
 * Bounds what a socket's messages may cost before graphql-ws parses them, as every JSON body is
 * bounded: until its connection_init is accepted a message may hold INIT_MAX_BYTES, then the body
 * limit (ws refuses a larger frame from its header, before buffering it, closing with 1009); until
 * then, a message nesting deeper than MAX_JSON_DEPTH is refused by one linear scan (4400) before it
 * is parsed. Afterwards an operation's variables are bounded in depth for that operation alone, as an
 * HTTP request's are (a coded error; the socket and its other operations go on).
 * A client's broken frames (too big, bad UTF-8, bad opcodes) are the client's fault: ws closes the
 * socket with the right code, and graphql-ws, which would print each as an "Internal error" with
 * its stack, never hears of them; they are logged at debug level.
 */
export function guardSocket(ws: WebSocket, opts: SocketGuardOptions): GuardedSocket {
  const initMax = Math.min(INIT_MAX_BYTES, opts.maxPayloadBytes);
  let limit = initMax;
  let acked = false;
  const receiver = receiverOf(ws);
  if (receiver) receiver._maxPayload = initMax;
  const emit = ws.emit.bind(ws) as (event: string | symbol, ...args: unknown[]) => boolean;
  (ws as { emit: unknown }).emit = (event: string | symbol, ...args: unknown[]): boolean => {
    if (event === 'message') {
      const [data] = args;
      if (lengthOf(data) > limit) {
        ws.close(CLOSE.tooBig, limit === initMax ? `connection_init is at most ${initMax} bytes` : `A message is at most ${limit} bytes`);
        return true;
      }
      // Once acknowledged, operations' variables are bounded per operation (variables.ts: an error
      // for that operation, the socket kept): only what comes before is refused whole here.
      if (!acked && jsonTextTooDeep(textOf(data), MAX_JSON_DEPTH)) {
        ws.close(CLOSE.badRequest, `A message nests deeper than ${MAX_JSON_DEPTH} levels`);
        return true;
      }
    } else if (event === 'error') {
      const err = args[0] as NodeJS.ErrnoException | undefined;
      if (err?.code?.startsWith('WS_ERR_')) {
        opts.log.debug({ err: err.message, code: err.code }, 'graphql-ws: a client sent a frame the protocol refuses');
        return true;
      }
    }
    return emit(event, ...args);
  };
  return {
    acknowledged() {
      acked = true;
      limit = opts.maxPayloadBytes;
      if (receiver) receiver._maxPayload = opts.maxPayloadBytes;
    },
  };
}
