import type { Logger } from 'pino';
import { BadRequest } from '../../core/shared/errors';
import { noMetrics, type Metrics } from '../../core/shared/telemetry/metrics';
import { sha256Hex } from './manifest';
import type { TrustedRegistry } from './registry';

/** GRAPHQL_TRUSTED_DOCUMENTS: what happens to an operation no app's list holds. */
export const TRUSTED_MODES = ['off', 'log', 'refuse'] as const;
export type TrustedMode = (typeof TRUSTED_MODES)[number];

/** What an operation request carries that matters here (a POST body, a GET's parameters, a graphql-ws payload). */
export interface IdentifiedOperation {
  query?: unknown;
  documentId?: unknown;
  extensions?: unknown;
}

/**
 * What to do with a request: run it as it is (`pass`), run the listed text its id names
 * (`resolved`: the query to run in place of the id, the Apollo persisted-query extension dropped so
 * APQ neither checks nor registers it), or refuse it (a BadRequest with a GraphQL code).
 */
export type TrustedDecision = { kind: 'pass' } | { kind: 'resolved'; query: string } | { kind: 'refused'; error: BadRequest };

/** Hashes of unlisted operations logged once each, at most this many per process (then counted only). */
const MAX_LOGGED = 10_000;

const NOT_LISTED = 'PERSISTED_QUERY_NOT_LISTED';

/** What the explorers (Apollo Sandbox, GraphiQL) say in refuse mode. */
export const REFUSE_NOTICE =
  'This graph runs only the operations its apps ship (GRAPHQL_TRUSTED_DOCUMENTS=refuse): what you type here, the schema ' +
  "introspection included, is refused (PERSISTED_QUERY_NOT_LISTED) unless an app's trusted document list holds its exact text. " +
  'See docs/trusted-documents.md.';

const persistedHash = (extensions: unknown): unknown => {
  const pq = (extensions as { persistedQuery?: unknown } | null | undefined)?.persistedQuery;
  return pq && typeof pq === 'object' ? (pq as { sha256Hash?: unknown }).sha256Hash : undefined;
};

export interface TrustedDocuments {
  mode: TrustedMode;
  decide(op: IdentifiedOperation): TrustedDecision;
}

/**
 * The trusted documents policy of a deployment. In every mode an id a list holds is resolved to
 * its text: `documentId` (GraphQL over HTTP's persisted documents, `sha256:<hex>` or an app's own
 * id) and `extensions.persistedQuery.sha256Hash` (Apollo) sent without the text. Then:
 * - off: anything else runs as before (an Apollo hash no list holds goes on to APQ);
 * - log: an operation whose text no list holds runs, is counted, and its hash and name logged once;
 * - refuse: it is refused (PERSISTED_QUERY_NOT_LISTED, HTTP 400): an unknown id, an APQ
 *   registration of a new hash, an introspection query no app ships, any text not listed.
 */
export function trustedDocuments(
  registry: Pick<TrustedRegistry, 'text' | 'listed'>,
  opts: { mode: TrustedMode; log: Logger; metrics?: Metrics },
): TrustedDocuments {
  const { mode, log } = opts;
  const counted = (opts.metrics ?? noMetrics).counter({
    name: 'platform_graphql_untrusted_operations_total',
    help: 'GraphQL operations no trusted document list holds, by GRAPHQL_TRUSTED_DOCUMENTS mode (log: run, refuse: refused)',
    labels: ['mode'],
  });
  const logged = new Set<string>();
  const refused = (message: string): TrustedDecision => ({ kind: 'refused', error: new BadRequest(message, { code: NOT_LISTED }) });
  const unlisted = (query: string, hash: string): TrustedDecision => {
    counted.inc({ mode });
    if (mode === 'refuse')
      return refused(
        'This graph runs only the operations its apps ship (GRAPHQL_TRUSTED_DOCUMENTS=refuse), and this one is not listed: ' +
          'send a listed document (by `documentId`, by its Apollo persisted-query hash, or its exact text)',
      );
    if (logged.size < MAX_LOGGED && !logged.has(hash)) {
      logged.add(hash);
      const name = /\b(?:query|mutation|subscription)\s+([A-Za-z_][A-Za-z0-9_]*)/.exec(query)?.[1];
      log.warn(
        { sha256: hash, operationName: name ?? null },
        'graphql: an operation no trusted document list holds ran (GRAPHQL_TRUSTED_DOCUMENTS=log)',
      );
    }
    return { kind: 'pass' };
  };
  return {
    mode,
    decide(op) {
      const hasQuery = typeof op.query === 'string' && op.query !== '';
      if (op.documentId !== undefined && op.documentId !== null) {
        if (typeof op.documentId !== 'string')
          return { kind: 'refused', error: new BadRequest('documentId must be a string', { code: 'BAD_REQUEST' }) };
        if (hasQuery)
          return { kind: 'refused', error: new BadRequest('Send either documentId or query, not both', { code: 'BAD_REQUEST' }) };
        const text = registry.text(op.documentId);
        if (text !== undefined) return { kind: 'resolved', query: text };
        if (mode === 'refuse') return refused(`No app's list holds the document '${op.documentId.slice(0, 80)}'`);
        return {
          kind: 'refused',
          error: new BadRequest(`No app's list holds the document '${op.documentId.slice(0, 80)}'`, { code: 'PERSISTED_QUERY_NOT_FOUND' }),
        };
      }
      const hash = persistedHash(op.extensions);
      if (!hasQuery && typeof hash === 'string') {
        const text = registry.text(hash);
        if (text !== undefined) return { kind: 'resolved', query: text };
        // Off and log: APQ's own store may know it (or asks the client for the text).
        return mode === 'refuse' ? refused(`No app's list holds the persisted query '${hash.slice(0, 80)}'`) : { kind: 'pass' };
      }
      if (mode === 'off' || !hasQuery) return { kind: 'pass' };
      const sha = sha256Hex(op.query as string);
      return registry.listed(sha) ? { kind: 'pass' } : unlisted(op.query as string, sha);
    },
  };
}
