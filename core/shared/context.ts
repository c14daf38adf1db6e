import type { Caller } from './auth/caller';

/**
 * What a face knows about one call, passed to every service method as its last argument
 * (see docs/service-conventions.md). All optional: the core must work without a transport.
 */
export interface CallContext {
  /** The verified caller, when the call carried `Authorization: Bearer`. */
  caller?: Caller;
  /** The caller's network address (for claims and throttling), as the transport trusts it. */
  clientAddress?: string;
  requestId?: string;
  /** Aborts when the caller goes away, so long work (model streams) can stop. */
  signal?: AbortSignal;
}
