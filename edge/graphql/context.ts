import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Request, Response } from 'express';
import type { Caller, Requirement } from '../../core/shared/auth/caller';
import { authorize, MissingCredentials } from '../../core/shared/auth/caller';
import type { TokenVerifier } from '../../core/shared/auth/verifier';
import type { CallContext } from '../../core/shared/context';
import { BadRequest, type PlatformError } from '../../core/shared/errors';
import { clientAddressOf } from '../http/client-address';

/** What every subgraph resolver gets from the transport (gateway in process, or its own server). */
export interface GraphContext {
  /** Lower-cased request headers the gateway forwards (authorization, api-key, x-request-id). */
  headers: Record<string, string | undefined>;
  clientAddress?: string;
  requestId?: string;
  /** The verified caller when the request carried a valid `Authorization: Bearer`. */
  caller?: Caller;
  /** Why the bearer token given was refused, raised by resolvers that need a caller. */
  authError?: PlatformError;
  /** Aborts when the HTTP client leaves before its answer is complete (made when first read). */
  readonly signal?: AbortSignal;
}

/** Headers the gateway passes on to subgraphs, in process or over HTTP. */
export const FORWARDED_HEADERS = ['authorization', 'api-key', 'x-request-id'] as const;

/**
 * The context of one GraphQL request, taken from its HTTP request. With a verifier (subgraphs in
 * this process) a bearer token is verified once here; without (a gateway whose subgraphs are all
 * remote) each subgraph verifies the forwarded header itself.
 */
export async function contextFrom(req: Request, verifier?: TokenVerifier): Promise<GraphContext> {
  const headers = Object.fromEntries(FORWARDED_HEADERS.map((h) => [h, req.get(h)]));
  const res = req.res;
  let signal: AbortSignal | undefined;
  return withCaller({
    headers, clientAddress: clientAddressOf(req), requestId: (req as Request & { id?: string }).id,
    get signal() {
      return (signal ??= res && leaving(res));
    },
  }, verifier);
}

/** Why a call was aborted: its HTTP client went away. Nobody is left to read it; it is no server fault. */
class CallerLeft extends BadRequest {
  constructor() {
    super('The caller left before the answer was complete', { code: 'caller_left' });
  }
}

/** A signal that aborts when the response closes before it was complete (the client left). */
function leaving(res: Response): AbortSignal {
  const controller = new AbortController();
  if (res.closed && !res.writableFinished) controller.abort(new CallerLeft());
  else res.once('close', () => !res.writableFinished && controller.abort(new CallerLeft()));
  return controller.signal;
}

/** The bearer token of `ctx.headers` verified once: the caller, or why it was refused. */
async function withCaller(ctx: GraphContext, verifier?: TokenVerifier): Promise<GraphContext> {
  if (verifier && ctx.headers.authorization) {
    try {
      ctx.caller = await verifier.authenticate(ctx.headers.authorization);
    } catch (err) {
      ctx.authError = err as PlatformError;
    }
  }
  return ctx;
}

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The context of one operation over a WebSocket (graphql-ws). Browsers cannot set headers on a
 * WebSocket, so the credentials come in connection_init's payload: `Authorization`/`authorization`
 * and `api-key`/`apiKey` (`x-request-id` too), else the upgrade request's own headers. The bearer
 * token is verified for each operation, as for each HTTP request, so one that expires while the
 * socket stays open stops working. The address is the socket's peer: no proxy is trusted here.
 */
export async function contextFromConnection(params: Readonly<Record<string, unknown>> | undefined, upgrade: IncomingMessage,
  verifier?: TokenVerifier): Promise<GraphContext> {
  // Names as HTTP headers are, case-insensitively: GraphiQL sends its header pane as typed (`Api-Key`).
  const named = new Map(Object.entries(params ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
  const param = (...names: string[]) => names.map((n) => named.get(n.toLowerCase())).find((v): v is string => typeof v === 'string');
  const header = (name: string) => (typeof upgrade.headers[name] === 'string' ? upgrade.headers[name] : undefined);
  const headers: GraphContext['headers'] = {
    authorization: param('authorization') ?? header('authorization'),
    'api-key': param('api-key', 'apiKey') ?? header('api-key'),
    'x-request-id': param('x-request-id') ?? header('x-request-id'),
  };
  const given = headers['x-request-id'];
  const requestId = given && SAFE_ID.test(given) ? given : randomUUID();
  return withCaller({ headers, clientAddress: upgrade.socket.remoteAddress?.replace(/^::ffff:/, '') || undefined, requestId }, verifier);
}

/** The caller a resolver needs, or the same UNAUTHENTICATED/FORBIDDEN a REST route would give. */
export function requireCaller(ctx: GraphContext, need: Requirement): Caller {
  if (ctx.authError) throw ctx.authError;
  if (!ctx.caller) throw new MissingCredentials();
  return authorize(ctx.caller, need);
}

/** The service call context of a resolver. */
export const callOf = (ctx: GraphContext): CallContext => ({ caller: ctx.caller, clientAddress: ctx.clientAddress, requestId: ctx.requestId });
