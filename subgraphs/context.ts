import type { Request } from 'express';
import type { Caller, Requirement } from '../core/auth/caller';
import { authorize, MissingCredentials } from '../core/auth/caller';
import type { TokenVerifier } from '../core/auth/verifier';
import type { CallContext } from '../core/context';
import type { PlatformError } from '../core/errors';
import { clientAddressOf } from '../rest/client-address';

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
  const ctx: GraphContext = { headers, clientAddress: clientAddressOf(req), requestId: (req as Request & { id?: string }).id };
  if (verifier && headers.authorization) {
    try {
      ctx.caller = await verifier.authenticate(headers.authorization);
    } catch (err) {
      ctx.authError = err as PlatformError;
    }
  }
  return ctx;
}

/** The caller a resolver needs, or the same UNAUTHENTICATED/FORBIDDEN a REST route would give. */
export function requireCaller(ctx: GraphContext, need: Requirement): Caller {
  if (ctx.authError) throw ctx.authError;
  if (!ctx.caller) throw new MissingCredentials();
  return authorize(ctx.caller, need);
}

/** The service call context of a resolver. */
export const callOf = (ctx: GraphContext): CallContext => ({ caller: ctx.caller, clientAddress: ctx.clientAddress, requestId: ctx.requestId });
