import type { Request } from 'express';

/** What every subgraph resolver gets from the transport (gateway in process, or its own server). */
export interface GraphContext {
  /** Lower-cased request headers the gateway forwards (authorization, api-key, x-request-id). */
  headers: Record<string, string | undefined>;
  clientAddress?: string;
}

/** Headers the gateway passes on to subgraphs, in process or over HTTP. */
export const FORWARDED_HEADERS = ['authorization', 'api-key', 'x-request-id'] as const;

/** The context of one GraphQL request, taken from its HTTP request. */
export const contextFrom = (req: Request): GraphContext => ({
  headers: Object.fromEntries(FORWARDED_HEADERS.map((h) => [h, req.get(h)])),
  clientAddress: (req.ip ?? req.socket.remoteAddress)?.replace(/^::ffff:/, '') || undefined,
});
