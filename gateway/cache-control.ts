import { createHash } from 'node:crypto';
import { HeaderMap, type ApolloServerPlugin } from '@apollo/server';
import type { RequestHandler, Response } from 'express';
import type { DocumentNode, GraphQLSchema } from 'graphql';
import type { GraphContext } from '../edge/graphql/context';
import { cacheHints } from './cache-hints';
import { cachePolicies, isCacheable, NOT_CACHEABLE, type CachePolicy } from './cache-policy';
import type { ResponseStore } from './response-cache';

/** What a private answer varies on: the caller's credentials (the gateway forwards both to the subgraphs). */
export const PRIVATE_VARY = 'Authorization, api-key';

/**
 * The `Cache-Control` of an answer: `max-age=N, public|private` when its operation's policy is
 * cacheable and it has no errors, `no-store` otherwise.
 */
export function cacheControlHeader(policy: CachePolicy, hasErrors: boolean): string {
  return isCacheable(policy) && !hasErrors ? `max-age=${policy.maxAge}, ${policy.scope.toLowerCase()}` : 'no-store';
}

/** JSON with every object's keys sorted: equal values, equal text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** The response cache's key: the graph, the document's hash, the operation name and the variables. */
export const responseKey = (graph: string, queryHash: string, operationName: string | null | undefined, variables: unknown): string =>
  createHash('sha256')
    .update(canonicalJson([graph, queryHash, operationName ?? null, variables ?? {}]))
    .digest('hex');

export interface CacheControlOptions {
  supergraphSdl: string;
  /** Public answers kept for their maxAge (GRAPHQL_RESPONSE_CACHE); none when absent. */
  store?: ResponseStore;
  now?: () => number;
}

/**
 * The gateway's cache hints (docs/graphql-caching.md), as an Apollo Server plugin in place of
 * Apollo's own cacheControl plugin (whose per-resolver hints never run at a gateway): each
 * operation's policy is computed from the supergraph's `@cacheControl` hints (once per document),
 * written as `Cache-Control` on every answer (GET, POST, persisted or not; `Vary` on the caller's
 * credentials when private), and, with a store, public cacheable queries are answered from it
 * (`x-cache: HIT` and `Age`) or kept in it (`MISS`) when their answer has no errors; any other
 * operation is `x-cache: BYPASS`.
 */
export function cacheControlPlugin(opts: CacheControlOptions): ApolloServerPlugin<GraphContext> {
  const hints = cacheHints(opts.supergraphSdl);
  const graph = createHash('sha256').update(opts.supergraphSdl).digest('hex');
  const now = opts.now ?? Date.now;
  const bySchema = new WeakMap<GraphQLSchema, (d: DocumentNode, name?: string | null) => CachePolicy>();
  const policiesOf = (schema: GraphQLSchema) => {
    let of = bySchema.get(schema);
    if (!of) bySchema.set(schema, (of = cachePolicies(schema, hints)));
    return of;
  };
  const { store } = opts;
  return {
    async requestDidStart() {
      let policy = NOT_CACHEABLE;
      let key: string | undefined;
      let hit: { storedAt: number } | undefined;
      return {
        async didResolveOperation(rc) {
          policy = policiesOf(rc.schema)(rc.document, rc.operationName);
          if (store && isCacheable(policy) && policy.scope === 'PUBLIC')
            key = responseKey(graph, rc.queryHash, rc.operationName, rc.request.variables);
        },
        async responseForOperation() {
          if (!key || !store) return null;
          const kept = await store.get(key);
          if (!kept) return null;
          hit = kept;
          return { http: { status: undefined, headers: new HeaderMap() }, body: { kind: 'single', singleResult: kept.result } };
        },
        async willSendResponse(rc) {
          const { headers } = rc.response.http;
          const single = rc.response.body.kind === 'single' ? rc.response.body.singleResult : undefined;
          const errors = !single || Boolean(single.errors?.length);
          headers.set('cache-control', cacheControlHeader(policy, errors));
          if (isCacheable(policy) && !errors && policy.scope === 'PRIVATE') headers.set('vary', PRIVATE_VARY);
          if (!store) return;
          headers.set('x-cache', key ? (hit ? 'HIT' : 'MISS') : 'BYPASS');
          if (hit) headers.set('age', String(Math.max(0, Math.floor((now() - hit.storedAt) / 1000))));
          else if (key && single && !errors)
            await store.set(key, { result: single as Record<string, unknown>, storedAt: now() }, policy.maxAge);
        },
      };
    },
  };
}

/** Sets a header of the answer; a `Vary` is merged into the one already there (CORS's `Origin`), each field once. */
export function setMerged(
  res: Response,
  name: string,
  value: number | string | readonly string[],
  set = res.setHeader.bind(res),
): Response {
  if (name.toLowerCase() !== 'vary') return set(name, value);
  const before = res.getHeader('vary');
  const all = [before, value]
    .flat()
    .filter((v) => v !== undefined)
    .join(',');
  const seen = new Map<string, string>();
  for (const field of all
    .split(',')
    .map((f) => f.trim())
    .filter(Boolean))
    if (!seen.has(field.toLowerCase())) seen.set(field.toLowerCase(), field);
  return set(name, [...seen.values()].join(', '));
}

/**
 * Apollo Server's express integration sets each header of its answer, replacing what earlier
 * middleware set: a `Vary` it writes is merged into the one already there (setMerged). The fast
 * path (fast-path.ts) merges its own, so this goes after it: on requests Apollo Server answers.
 */
export const mergedVary: RequestHandler = (_req, res, next) => {
  const setHeader = res.setHeader.bind(res);
  res.setHeader = (name: string, value: number | string | readonly string[]) => setMerged(res, name, value, setHeader);
  next();
};
