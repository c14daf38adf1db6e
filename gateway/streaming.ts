import type { Request, RequestHandler, Response } from 'express';
import { getOperationAST, OperationTypeNode, parse, type DocumentNode, type GraphQLError } from 'graphql';
import type { Logger } from 'pino';
import type { TokenVerifier } from '../core/shared/auth/verifier';
import { DEFAULT_STREAM_HEARTBEAT_MS } from '../core/shared/config';
import { BadRequest, UnsupportedMediaType } from '../core/shared/errors';
import { isPlainObject } from '../core/shared/validation';
import { better, listed, mediaRanges } from '../edge/graphql/accept';
import { contextFrom } from '../edge/graphql/context';
import { refuseCrossSite } from '../edge/graphql/csrf';
import { formatExecutionError } from '../edge/graphql/errors';
import { openStream } from '../edge/http/event-stream';
import { multipartFraming } from '../edge/http/stream-frames';
import type { GraphqlLimits } from '../edge/graphql/limits';
import { operationPreparer, type OperationPayload } from '../edge/graphql/prepare';
import type { SocketGraph } from '../edge/graphql/ws';
import { claimedBy } from './claimed';
import { INTERNAL_ERROR, relay, startOperation, stopOnClose } from './relay';
import { distinctStream } from './sse';
import { singleConnections, TOKEN_HEADER, type SingleConnectionOptions } from './sse-single';
import type { StreamHub } from './stream-hub/hub';

export interface StreamingOptions {
  /** The graph each transport runs operations on (its subscriptions counted as open on that transport). */
  graphs: Record<'sse' | 'multipart', Required<SocketGraph>>;
  limits: GraphqlLimits;
  log: Logger;
  introspection?: boolean;
  /** Between keep-alives (STREAM_HEARTBEAT_MS): multipart heartbeats (`{}`), SSE comments; default 10000 ms. */
  heartbeatMs?: number;
  /** Serves graphql-sse's single connection mode, whose streams belong to the verified caller who reserved them. */
  verifier?: TokenVerifier;
  /** Bounds of the single connection mode. */
  single?: Pick<SingleConnectionOptions, 'maxStreamsPerCaller' | 'reservationTtlMs' | 'maxOperationsPerStream'>;
  /** Where the single connection mode's streams are known to every worker and replica (this process alone by default). */
  hub?: StreamHub;
}

export interface StreamingTransports {
  handler: RequestHandler;
  /** Ends every open event stream of the single connection mode. */
  close(): void;
}

type Kind = 'subscription' | 'other';
/** An operation as a GET's query string or a POST's JSON body carries it. */
export type HttpOperation = OperationPayload & { extensions?: Record<string, unknown> | null };

/** Apollo's multipart subscription framing: boundary `graphql`, one JSON part per event. */
const MULTIPART = multipartFraming('graphql', ';subscriptionSpec="1.0"');
/** Answers Apollo Server gives as JSON, and the wildcards that take them. */
const JSON_TYPES = ['application/graphql-response+json', 'application/json', 'application/*', '*/*'];

export const queryParams = (req: Request) => new URLSearchParams(req.originalUrl.split('?')[1] ?? '');

/** A mutation sent with GET: 405, as Apollo Server answers it (a GET must not change anything). */
export const refuseMutationOverGet = (res: Response): void => {
  res
    .status(405)
    .set('allow', 'POST')
    .json({
      errors: [
        {
          message: 'GET requests only support query and subscription operations, not mutation operations',
          extensions: { code: 'BAD_REQUEST' },
        },
      ],
    });
};

/** What a request's operation is (no parse without the word `subscription`, so cheap for everything else). */
function operationKind(body: unknown): Kind | 'unparsable' {
  const { query, operationName } = (body ?? {}) as { query?: unknown; operationName?: unknown };
  if (typeof query !== 'string' || !/\bsubscription\b/.test(query)) return 'other';
  try {
    return getOperationAST(parse(query), typeof operationName === 'string' ? operationName : undefined)?.operation ===
      OperationTypeNode.SUBSCRIPTION
      ? 'subscription'
      : 'other';
  } catch {
    return 'unparsable';
  }
}

/**
 * How to answer, from the Accept header's media ranges and their quality values: GraphQL over SSE
 * when `text/event-stream` is listed, multipart when `multipart/mixed;subscriptionSpec=...` is (for a
 * subscription), JSON (Apollo Server) when a JSON type or a wildcard is (for anything else); the
 * highest quality wins, then the type listed first. A wildcard never picks a stream.
 */
export function transportFor(accept: string | undefined, kind: Kind): 'sse' | 'multipart' | 'json' {
  const ranges = mediaRanges(accept);
  const sse = listed(ranges, 'text/event-stream');
  const multipart = kind === 'subscription' ? listed(ranges, 'multipart/mixed', (r) => 'subscriptionspec' in r.params) : undefined;
  const json = kind === 'subscription' ? undefined : ranges.filter((r) => JSON_TYPES.includes(r.type) && r.q > 0).reduce(better, undefined);
  const best = [sse, multipart, json].reduce(better, undefined);
  return best && best === sse ? 'sse' : best && best === multipart ? 'multipart' : 'json';
}

/** The operation of a GET (query string: query, operationName, variables and extensions as JSON) or of a JSON POST. */
export function operationOf(req: Request): HttpOperation {
  let read: Record<string, unknown>;
  if (req.method === 'GET') {
    const params = queryParams(req);
    const json = (name: string) => {
      const text = params.get(name);
      if (text === null || text === '') return undefined;
      try {
        return JSON.parse(text) as unknown;
      } catch {
        throw new BadRequest(`The ${name} parameter is not JSON`, { code: 'BAD_REQUEST' });
      }
    };
    read = {
      query: params.get('query') ?? undefined,
      operationName: params.get('operationName') || undefined,
      variables: json('variables'),
      extensions: json('extensions'),
    };
  } else {
    if (!req.is('application/json'))
      throw new UnsupportedMediaType('Send the operation as JSON: `content-type: application/json`', { code: 'BAD_REQUEST' });
    const body: unknown = req.body;
    read = isPlainObject(body) ? body : {};
  }
  const { query, operationName, variables, extensions } = read;
  const object = (v: unknown) => v === undefined || v === null || (typeof v === 'object' && !Array.isArray(v));
  if (typeof query !== 'string' || !query)
    throw new BadRequest('The operation has no query: send `query`, or the id of a persisted query', { code: 'BAD_REQUEST' });
  if (operationName !== undefined && operationName !== null && typeof operationName !== 'string')
    throw new BadRequest('operationName must be a string', { code: 'BAD_REQUEST' });
  if (!object(variables) || !object(extensions))
    throw new BadRequest('variables and extensions must be JSON objects', { code: 'BAD_REQUEST' });
  return { query, operationName, variables, extensions } as HttpOperation;
}

/**
 * Apollo's multipart HTTP subscription protocol (`Accept: multipart/mixed;subscriptionSpec=1.0`),
 * the one Apollo Client speaks to Apollo's router: one JSON part per event as `{"payload": result}`,
 * a `{}` heartbeat every few seconds, `{"payload": null, "errors": [...]}` when the stream fails,
 * and the closing boundary at the end. The client going away ends the subscription (and so the
 * subgraph's stream and the model call behind it). Writes wait for a slow client to drain.
 */
async function multipart(req: Request, res: Response, opts: StreamingOptions, document: DocumentNode, payload: OperationPayload) {
  const outcome = await startOperation(opts.graphs.multipart, 'subscription', document, payload, contextFrom(req));
  const stream = openStream(res, {
    headers: MULTIPART.head,
    heartbeat: { frame: MULTIPART.part('{}'), everyMs: opts.heartbeatMs ?? DEFAULT_STREAM_HEARTBEAT_MS },
  });
  const write = (json: string) => stream.write(MULTIPART.part(json));
  const unwatch = stopOnClose(res, outcome);
  try {
    if (Symbol.asyncIterator in outcome) await write('{}');
    await relay(outcome, {
      send: (result) => write(JSON.stringify({ payload: result })),
      failed: () => write(JSON.stringify({ payload: null, errors: [INTERNAL_ERROR] })),
      stopped: () => stream.gone,
      log: opts.log,
    });
  } finally {
    unwatch();
    stream.end(MULTIPART.end);
  }
}

/**
 * Subscriptions (and, over SSE, any operation) for HTTP-only clients at the gateway's /graphql,
 * between the document guard (which has bounded the operation) and Apollo Server:
 * - GraphQL over SSE (graphql-sse's protocol), GET or POST, when Accept lists `text/event-stream`
 *   first by quality (transportFor): distinct connections (`next` events, then `complete`), and,
 *   given a verifier, the single connection mode (PUT reserves a stream; sse-single.ts), its
 *   streams shared by every worker and replica through the hub;
 * - `Accept: multipart/mixed;subscriptionSpec=1.0` with a subscription: the multipart protocol;
 * - a subscription in a plain JSON request: refused, naming the transports that carry it.
 * Apollo's CSRF prevention holds for SSE (edge/graphql/csrf.ts), and a mutation is never run from a
 * GET. Everything else goes on to Apollo Server.
 */
export function streamingTransports(opts: StreamingOptions): StreamingTransports {
  const prepare = operationPreparer(opts.graphs.sse.schema, opts.limits, opts.introspection !== false);
  const refusal = (errors: readonly GraphQLError[]) => ({ errors: errors.map((e) => formatExecutionError(e, opts.log)) });
  const sse = { graph: opts.graphs.sse, log: opts.log, heartbeatMs: opts.heartbeatMs };
  const single = opts.verifier ? singleConnections({ ...opts.single, ...sse, verifier: opts.verifier, prepare, hub: opts.hub }) : undefined;

  /** The prepared operation of an SSE request, or undefined once it has been refused here. */
  const prepared = (req: Request, res: Response, payload: HttpOperation): { document: DocumentNode; kind: Kind } | undefined => {
    const document = prepare(payload);
    if (Array.isArray(document)) return void res.status(400).json(refusal(document));
    const operation = getOperationAST(document as DocumentNode, payload.operationName ?? undefined)?.operation;
    if (req.method === 'GET' && operation === OperationTypeNode.MUTATION) return void refuseMutationOverGet(res);
    return { document: document as DocumentNode, kind: operation === OperationTypeNode.SUBSCRIPTION ? 'subscription' : 'other' };
  };

  /** GraphQL over SSE's single connection mode (sse-single.ts): its control requests and its operations. */
  const singleConnection = async (req: Request, res: Response, s: NonNullable<typeof single>): Promise<boolean> => {
    if (req.method === 'PUT' || req.method === 'DELETE' || listed(mediaRanges(req.get('accept')), 'text/event-stream')) {
      await s.control(req, res);
      return true;
    }
    // Only the header proves a preflight: a `?token=` alone is a URL any page can load.
    refuseCrossSite(req, [TOKEN_HEADER]);
    const payload = operationOf(req);
    const admitted = await s.admit(req, payload);
    const ready = prepared(req, res, payload);
    if (ready) await s.run(req, res, admitted, ready.kind, payload);
    return true;
  };

  /** Answers the request (true, or a promise of it), or says false to leave it to Apollo Server. */
  const route = (req: Request, res: Response): boolean | Promise<boolean> => {
    const accept = req.get('accept');
    if (single?.handles(req)) return singleConnection(req, res, single);
    if (req.method !== 'POST' && req.method !== 'GET') return false;
    const body: unknown = req.method === 'POST' ? req.body : Object.fromEntries(queryParams(req));
    const kind = operationKind(body);
    const transport = transportFor(accept, kind === 'subscription' ? 'subscription' : 'other');
    if (transport === 'sse') {
      refuseCrossSite(req);
      const payload = operationOf(req);
      const ready = prepared(req, res, payload);
      return ready ? distinctStream(req, res, sse, ready.kind, ready.document, payload).then(() => true) : true;
    }
    // A broken subscription sent for multipart gets its syntax error here: Apollo would answer 406,
    // as it cannot answer JSON to a client that accepts only multipart.
    if (
      kind === 'unparsable' &&
      req.method === 'POST' &&
      listed(mediaRanges(accept), 'multipart/mixed', (r) => 'subscriptionspec' in r.params)
    ) {
      const refused = prepare(body as OperationPayload);
      if (Array.isArray(refused)) {
        res.status(400).json(refusal(refused));
        return true;
      }
    }
    if (kind !== 'subscription') return false;
    if (req.method === 'GET' || transport !== 'multipart') {
      throw new BadRequest(
        'A subscription is streamed: subscribe over graphql-ws (a WebSocket to this URL), or ask for ' +
          '`Accept: text/event-stream` (GraphQL over SSE, GET or POST) or POST with `Accept: multipart/mixed;subscriptionSpec=1.0`',
        { code: 'SUBSCRIPTIONS_NOT_SUPPORTED' },
      );
    }
    const payload = body as OperationPayload;
    const document = prepare(payload);
    if (Array.isArray(document)) {
      res.status(400).json(refusal(document));
      return true;
    }
    return multipart(req, res, opts, document as DocumentNode, payload).then(() => true);
  };

  return {
    handler: claimedBy(route, opts.log, 'streamed operation failed'),
    close: () => single?.close(),
  };
}
