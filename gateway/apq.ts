import { createHash } from 'node:crypto';
import type { KeyValueCache } from '@apollo/utils.keyvaluecache';
import type { Request, RequestHandler, Response } from 'express';
import { BadRequest } from '../core/shared/errors';
import { isPlainObject } from '../core/shared/validation';
import { getExtensions, getParams, INVALID, rewriteGet, withQuery } from './operation-rewrite';

/** Apollo Server's answer to a hash it does not hold (HTTP 200: Apollo's link then sends the text). */
const NOT_FOUND = JSON.stringify({ errors: [{ message: 'PersistedQueryNotFound', extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } }] });

/**
 * What a request's persisted-query extension asks, as Apollo Server reads it: nothing (no
 * extension), a version other than 1 (or not an object: Apollo's 400), or version 1 with its hash
 * (a hash that is not a string then matches no text and no stored query).
 */
function askedOf(extensions: unknown): { hash: string } | 'none' | 'unsupported' {
  const pq = isPlainObject(extensions) ? extensions.persistedQuery : undefined;
  if (pq === undefined || pq === null) return 'none';
  if (!isPlainObject(pq) || pq.version !== 1) return 'unsupported';
  return { hash: typeof pq.sha256Hash === 'string' ? pq.sha256Hash : '' };
}

const SHA256_HEX = /^[0-9a-f]{64}$/;

const notFound = (res: Response) => res.status(200).set('cache-control', 'no-store').type('application/json').send(NOT_FOUND);

/**
 * Automatic persisted queries (Apollo's protocol) for every HTTP transport, resolved before any of
 * them: plain queries and mutations, `@defer` (multipart or whole), subscriptions over SSE and
 * multipart, GET and POST. Apollo Server does the same only for what reaches it, and the others are
 * answered before it. `resolve` goes at /graphql after the trusted documents (which resolve listed
 * hashes first) and before the document guard (which checks the text a hash stands for), `register`
 * right after the guard:
 * - a hash without text: the text the store holds replaces it (the request goes on as an ordinary
 *   one, the extension dropped), else `PersistedQueryNotFound` as Apollo Server answers it;
 * - a hash with its text: the hash must be the text's SHA-256 (else 400, Apollo's message), the
 *   request goes on as an ordinary one, and the text is kept for later requests once the document
 *   guard let it through and it validates (a write that fails is only logged by the store);
 * - another version, or an extension that is not an object: 400 `Unsupported persisted query version`.
 * The store is the one Apollo Server uses (gateway.db, Redis, or memory), so every path shares hashes.
 * `valid` says whether a registered text parses and validates against the graph's schema: Apollo
 * Server keeps a text only after validation, and so does this (a registration is rare: each client's
 * first request of an operation).
 */
export function persistedQueries(
  store: KeyValueCache<string>,
  valid: (query: string) => boolean,
): { resolve: RequestHandler; register: RequestHandler } {
  /** Registrations waiting for the document guard (the text is kept once it passed, as Apollo Server keeps it after validation). */
  const registering = new WeakMap<Response, { hash: string; query: string }>();
  /** The text to run, undefined when answered here; throws a BadRequest for what Apollo Server refuses. */
  const resolve = async (asked: { hash: string }, query: unknown, res: Response): Promise<string | undefined> => {
    if (typeof query === 'string' && query !== '') {
      if (createHash('sha256').update(query).digest('hex') !== asked.hash)
        throw new BadRequest('provided sha does not match query', { code: 'BAD_REQUEST' });
      registering.set(res, { hash: asked.hash, query });
      return query;
    }
    // Only a text's SHA-256 (64 lower-case hex) is ever kept: anything else is not looked up.
    const text = SHA256_HEX.test(asked.hash) ? await store.get(asked.hash).catch(() => undefined) : undefined;
    if (text === undefined) notFound(res);
    return text;
  };
  const unsupported = () => new BadRequest('Unsupported persisted query version', { code: 'BAD_REQUEST' });
  /** A POST's or GET's extensions and query, and how to make the request carry a text instead; undefined when it is not one. */
  const operationOf = (req: Request): { extensions: unknown; query: unknown; carry(query: string): void } | undefined => {
    if (req.method === 'POST') {
      const body: unknown = req.body;
      // Not an operation's body, or a query that is not text: the document guard answers it.
      if (!isPlainObject(body) || (body.query !== undefined && body.query !== null && typeof body.query !== 'string')) return undefined;
      return { extensions: body.extensions, query: body.query, carry: (query) => (req.body = withQuery(body, query)) };
    }
    if (req.method !== 'GET') return undefined;
    const params = getParams(req);
    const extensions = getExtensions(params);
    // Not JSON: Apollo Server answers that itself.
    if (extensions === INVALID) return undefined;
    return { extensions, query: params.get('query') ?? undefined, carry: (query) => rewriteGet(req, params, query) };
  };
  return {
    resolve: (req, res, next) => {
      const op = operationOf(req);
      const asked = op ? askedOf(op.extensions) : 'none';
      // Most requests carry no persisted query: they go on at once, without a turn of the event loop.
      if (!op || asked === 'none') return next();
      if (asked === 'unsupported') return next(unsupported());
      resolve(asked, op.query, res).then((query) => {
        if (query === undefined) return;
        op.carry(query);
        next();
      }, next);
    },
    /** After the document guard: keeps the text of a registration that passed it and is a valid operation. */
    register: (_req, res, next) => {
      const r = registering.get(res);
      if (r && valid(r.query)) void store.set(r.hash, r.query);
      next();
    },
  };
}
