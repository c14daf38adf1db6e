import { z } from 'zod';
import { BadRequest } from '../../shared/errors';
import { DeploymentId, RETRY, ROUTING_STRATEGIES, RouteTarget, TIMEOUT, type Routing } from '../catalog/catalog';

/**
 * The per-request routing override (issue 35): the `x-platform-route` header, a small JSON object
 * read at the edge (rest/models, with the LM key) and carried on the KeyCaller to every door.
 * Only its shape is checked here; whether the deployments and fallbacks it names exist and the key
 * may use them is the router's to check against the catalog (400 / 403 / 404).
 */
export const ROUTE_HEADER = 'x-platform-route';

/** The header's largest JSON (bytes): a routing policy is small, and the header is read on every call. */
export const MAX_ROUTE_HEADER_BYTES = 4096;

export const RouteOverride = z.strictObject({
  strategy: z.enum(ROUTING_STRATEGIES).optional(),
  /** This model's deployments to use, in this order (the others are left out). */
  deployments: z.array(DeploymentId).min(1).max(50).optional(),
  /** In place of the model's `fallbacks`. */
  fallbacks: z.array(RouteTarget).max(10).optional(),
  retry: z.strictObject(RETRY).partial().optional(),
  timeout: z.strictObject(TIMEOUT).partial().optional(),
});
export type RouteOverride = z.output<typeof RouteOverride>;

const invalid = (message: string) => new BadRequest(`${ROUTE_HEADER}: ${message}`, { code: 'invalid_route_config' });

/** The header's override; undefined when absent; 400 `invalid_route_config` naming the field when it is not one. */
export function parseRouteHeader(header: string | undefined): RouteOverride | undefined {
  if (header === undefined || !header.trim()) return undefined;
  if (Buffer.byteLength(header) > MAX_ROUTE_HEADER_BYTES) throw invalid(`at most ${MAX_ROUTE_HEADER_BYTES} bytes of JSON`);
  let raw: unknown;
  try {
    raw = JSON.parse(header);
  } catch {
    throw invalid('not JSON');
  }
  const parsed = RouteOverride.safeParse(raw);
  if (!parsed.success) {
    const i = parsed.error.issues[0];
    throw invalid(`${i.path.join('.') || '(object)'}: ${i.message}`);
  }
  return parsed.data;
}

/** The model's policy with the override's fields over it (`deployments` is the router's: it orders and restricts). */
export function mergeRouting(policy: Routing, o: RouteOverride | undefined): Routing {
  if (!o) return policy;
  return {
    ...policy,
    ...(o.strategy && { strategy: o.strategy }),
    ...(o.fallbacks && { fallbacks: o.fallbacks }),
    retry: { ...policy.retry, ...o.retry },
    timeout: { ...policy.timeout, ...o.timeout },
  };
}
