import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Request, Response } from 'express';
import type { Presented } from '../../core/shared/auth/credentials';
import { CallerLeft } from '../../core/shared/cancel';
import type { Trace } from '../../core/shared/telemetry/tracing';
import { clientAddressOf } from '../http/client-address';
import { requestSpanOf, type RequestSpan } from '../http/telemetry';

/** What every subgraph resolver gets from the transport (gateway in process, or its own server). */
export interface GraphContext {
  /** Lower-cased request headers the gateway forwards (authorization, api-key, x-request-id). */
  headers: Record<string, string | undefined>;
  clientAddress?: string;
  requestId?: string;
  /** Aborts when the HTTP client leaves before its answer is complete (made when first read). */
  readonly signal?: AbortSignal;
  /** Each service's caller, established once per request by its resolvers (calls.ts). */
  callers: Map<string, Promise<unknown>>;
  /** One verification of a bearer token however many services it reaches. */
  memo: Map<string, Promise<unknown>>;
  /**
   * Where the resolvers' work belongs in the request's trace: the operation's span (the HTTP
   * request's own, named after the operation, when the request carries it), and for each fetch of
   * a remote subgraph that fetch's span (gateway/fetch-telemetry.ts). Absent when nothing traces.
   */
  trace?: Trace;
  /** The HTTP request's server span, when its response carries the operation's answer (contextFrom). */
  requestSpan?: RequestSpan;
}

/** Headers the gateway passes on to subgraphs, in process or over HTTP. */
export const FORWARDED_HEADERS = ['authorization', 'api-key', 'x-request-id'] as const;

/**
 * The context of one GraphQL request, taken from its HTTP request (`answeredInResponse: false`
 * when the response ends before the operation runs). Credentials are only carried
 * here: each subgraph's resolvers establish their service's caller from them (calls.ts), in this
 * process or, behind a gateway whose subgraphs run elsewhere, where the subgraph runs.
 */
export function contextFrom(req: Request, opts: { answeredInResponse?: boolean } = {}): GraphContext {
  return new HttpContext(req, opts.answeredInResponse !== false);
}

/**
 * contextFrom's context: a class, so that its lazy `signal` is its prototype's getter (an object
 * literal with a getter is built slowly on every request, and a shallow copy, as Apollo Server's
 * executeOperation makes, would run the getter at once).
 */
class HttpContext implements GraphContext {
  readonly headers: Record<string, string | undefined> = {};
  readonly clientAddress: string | undefined;
  readonly requestId: string | undefined;
  readonly callers = new Map<string, Promise<unknown>>();
  readonly memo = new Map<string, Promise<unknown>>();
  readonly trace: Trace | undefined;
  readonly requestSpan: RequestSpan | undefined;
  private readonly res: Response | undefined;
  private left: AbortSignal | undefined;

  constructor(req: Request, answeredInResponse: boolean) {
    // Node's header names are lower-cased already (express's req.get would only lower-case them again).
    for (const h of FORWARDED_HEADERS) this.headers[h] = req.headers[h] as string | undefined;
    this.res = req.res;
    const own = this.res && requestSpanOf(this.res);
    this.clientAddress = clientAddressOf(req);
    this.requestId = (req as Request & { id?: string }).id;
    this.trace = own?.trace;
    // A request answered before its operation runs (202 on GraphQL over SSE's single connection) cannot be the operation's span.
    this.requestSpan = answeredInResponse ? own : undefined;
  }

  get signal(): AbortSignal | undefined {
    return (this.left ??= this.res && leaving(this.res));
  }
}

/** A signal that aborts when the response closes before it was complete (the client left). */
function leaving(res: Response): AbortSignal {
  const controller = new AbortController();
  if (res.closed && !res.writableFinished) controller.abort(new CallerLeft());
  else res.once('close', () => !res.writableFinished && controller.abort(new CallerLeft()));
  return controller.signal;
}

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** connection_init's parameters by lower-cased name: they are read by any case of their names, as HTTP headers are. */
const paramsByName = (params: Readonly<Record<string, unknown>> | undefined) =>
  new Map(Object.entries(params ?? {}).map(([k, v]) => [k.toLowerCase(), v]));

/**
 * The `Authorization` a graphql-ws socket presents: connection_init's `authorization` parameter (any
 * case; whatever its type, so a present but malformed one is refused, not ignored), else the upgrade
 * request's header; undefined when neither is there or it is blank.
 */
export function connectionAuthorization(params: Readonly<Record<string, unknown>> | undefined, upgrade: IncomingMessage): unknown {
  const named = paramsByName(params);
  const value = named.has('authorization') ? named.get('authorization') : upgrade.headers.authorization;
  return value === null || (typeof value === 'string' && !value.trim()) ? undefined : value;
}

/**
 * The context of one operation over a WebSocket (graphql-ws). Browsers cannot set headers on a
 * WebSocket, so the credentials come in connection_init's payload: `Authorization`/`authorization`
 * and `api-key`/`apiKey` (`x-request-id` too), else the upgrade request's own headers. The bearer
 * token is verified for each operation, as for each HTTP request, so one that expires while the
 * socket stays open stops working. The address is the upgrade request's, as TRUST_PROXY resolves it
 * (ws.ts), else the socket's peer.
 */
export function contextFromConnection(
  params: Readonly<Record<string, unknown>> | undefined,
  upgrade: IncomingMessage,
  clientAddress?: string,
): GraphContext {
  // Names as HTTP headers are, case-insensitively: GraphiQL sends its header pane as typed (`Api-Key`).
  const named = paramsByName(params);
  const param = (...names: string[]) => names.map((n) => named.get(n.toLowerCase())).find((v): v is string => typeof v === 'string');
  const header = (name: string) => (typeof upgrade.headers[name] === 'string' ? upgrade.headers[name] : undefined);
  const headers: GraphContext['headers'] = {
    authorization: param('authorization') ?? header('authorization'),
    'api-key': param('api-key', 'apiKey') ?? header('api-key'),
    'x-request-id': param('x-request-id') ?? header('x-request-id'),
  };
  const given = headers['x-request-id'];
  const requestId = given && SAFE_ID.test(given) ? given : randomUUID();
  const address = clientAddress ?? (upgrade.socket.remoteAddress?.replace(/^::ffff:/, '') || undefined);
  return { headers, clientAddress: address, requestId, callers: new Map(), memo: new Map() };
}

/** What a request presents to a service's credentials. */
export const presentedBy = (ctx: GraphContext): Presented => ({
  header: (name) => ctx.headers[name],
  memo: ctx.memo,
  address: ctx.clientAddress,
});
