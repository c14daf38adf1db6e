import type { Trace } from './telemetry/tracing';

/**
 * What every service method gets beside its input (docs/service-conventions.md): `method(input, ctx)`.
 * The caller is established at the edge (REST router, subgraph resolver, graphql-ws, SSE, multipart)
 * as the service's module declares (auth/credentials.ts), before the core runs; the core checks
 * permissions on it and never verifies a credential again. A service without callers (the token
 * service: OAuth clients authenticate inside the request itself) has an optional, absent caller.
 */
export interface CallMeta {
  requestId?: string;
  /** The caller's network address (claims, throttling), as the transport trusts it. */
  clientAddress?: string;
  /** Aborts when the caller goes away, so long work (a model's answer) stops. */
  signal?: AbortSignal;
  /** Where the call's spans belong in the request's trace (telemetry/tracing.ts); absent when nothing traces. */
  trace?: Trace;
}

export type Ctx<C = undefined> = CallMeta & (undefined extends C ? { caller?: C } : { caller: C });
