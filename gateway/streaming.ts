import { once } from 'node:events';
import type { Request, RequestHandler, Response } from 'express';
import { getOperationAST, parse, type DocumentNode, type ExecutionResult, type GraphQLError } from 'graphql';
import { createHandler } from 'graphql-sse/lib/use/express';
import type { Logger } from 'pino';
import { BadRequest } from '../core/shared/errors';
import { contextFrom } from '../edge/graphql/context';
import { formatExecutionError } from '../edge/graphql/errors';
import type { GraphqlLimits } from '../edge/graphql/limits';
import { operationPreparer, type OperationPayload } from '../edge/graphql/prepare';
import type { SocketGraph } from '../edge/graphql/ws';

export interface StreamingOptions {
  graph: Required<SocketGraph>;
  limits: GraphqlLimits;
  log: Logger;
  introspection?: boolean;
  /** Between multipart heartbeats (`{}`), default 10000 ms. */
  heartbeatMs?: number;
}

const BOUNDARY = 'graphql';
const PART = `\r\n--${BOUNDARY}\r\ncontent-type: application/json; charset=utf-8\r\n\r\n`;
const END = `\r\n--${BOUNDARY}--\r\n`;

/** What a request body's operation is (no parse without the word `subscription`, so cheap for everything else). */
function operationKind(body: unknown): 'subscription' | 'other' | 'unparsable' {
  const { query, operationName } = (body ?? {}) as { query?: unknown; operationName?: unknown };
  if (typeof query !== 'string' || !/\bsubscription\b/.test(query)) return 'other';
  try {
    return getOperationAST(parse(query), typeof operationName === 'string' ? operationName : undefined)?.operation === 'subscription' ? 'subscription' : 'other';
  } catch {
    return 'unparsable';
  }
}

const wantsMultipart = (accept: string) => /multipart\/mixed/i.test(accept) && /subscriptionSpec/i.test(accept);

/**
 * Apollo's multipart HTTP subscription protocol (`Accept: multipart/mixed;subscriptionSpec=1.0`),
 * the one Apollo Client speaks to Apollo's router: one JSON part per event as `{"payload": result}`,
 * a `{}` heartbeat every few seconds, `{"payload": null, "errors": [...]}` when the stream fails,
 * and the closing boundary at the end. The client going away ends the subscription (and so the
 * subgraph's stream and the model call behind it). Writes wait for a slow client to drain.
 */
async function multipart(req: Request, res: Response, opts: StreamingOptions, document: DocumentNode, payload: OperationPayload) {
  const context = contextFrom(req);
  const outcome = await opts.graph.subscribe({
    schema: opts.graph.schema, document, operationName: payload.operationName, variableValues: payload.variables, contextValue: context,
  }) as AsyncIterableIterator<ExecutionResult> | ExecutionResult;
  const format = (r: ExecutionResult) => (r.errors ? { ...r, errors: r.errors.map((e) => formatExecutionError(e, opts.log)) } : r);
  res.writeHead(200, { 'content-type': `multipart/mixed;boundary="${BOUNDARY}";subscriptionSpec="1.0"`, 'cache-control': 'no-cache, no-store' });
  res.flushHeaders();
  let gone = false;
  const write = async (json: string) => {
    if (gone) return;
    if (!res.write(PART + json)) await Promise.race([once(res, 'drain'), once(res, 'close')]);
  };
  if (!(Symbol.asyncIterator in outcome)) {
    await write(JSON.stringify({ payload: format(outcome) }));
    res.end(END);
    return;
  }
  const stop = () => {
    gone = true;
    void outcome.return?.();
  };
  res.once('close', stop);
  const heartbeat = setInterval(() => void write('{}'), opts.heartbeatMs ?? 10_000);
  try {
    await write('{}');
    for (;;) {
      const r = await outcome.next();
      if (r.done || gone) break;
      await write(JSON.stringify({ payload: format(r.value) }));
    }
  } catch (err) {
    opts.log.error({ err }, 'subscription failed');
    await write(JSON.stringify({ payload: null, errors: [{ message: 'Internal server error', extensions: { code: 'INTERNAL_SERVER_ERROR' } }] }));
  } finally {
    clearInterval(heartbeat);
    res.off('close', stop);
    if (!gone) res.end(END);
  }
}

/**
 * Subscriptions (and, over SSE, any operation) for HTTP-only clients at the gateway's /graphql,
 * between the document guard (which has bounded the operation) and Apollo Server:
 * - `Accept: text/event-stream` on a POST: GraphQL over SSE (graphql-sse's distinct connections
 *   mode): `next` events, then `complete`; keep-alive comments every 12 s;
 * - `Accept: multipart/mixed;subscriptionSpec=1.0` with a subscription: the multipart protocol;
 * - a subscription in a plain JSON request: refused, naming the transports that carry it.
 * Everything else goes on to Apollo Server.
 */
export function streamingTransports(opts: StreamingOptions): RequestHandler {
  const prepare = operationPreparer(opts.graph.schema, opts.limits, opts.introspection !== false);
  const refusal = (errors: readonly GraphQLError[]) => ({ errors: errors.map((e) => formatExecutionError(e, opts.log)) });
  const sse = createHandler<Record<PropertyKey, unknown>>({
    schema: opts.graph.schema,
    // Already validated in onSubscribe, with the endpoint's rules.
    validate: () => [],
    onSubscribe: async (req, params) => {
      const document = prepare(params as OperationPayload);
      if (Array.isArray(document)) {
        return [JSON.stringify(refusal(document)), { status: 400, statusText: 'Bad Request', headers: { 'content-type': 'application/json; charset=utf-8' } }];
      }
      return {
        schema: opts.graph.schema, document: document as DocumentNode, operationName: params.operationName, variableValues: params.variables,
        contextValue: contextFrom(req.raw) as unknown as Record<PropertyKey, unknown>,
      };
    },
    execute: opts.graph.execute as never,
    subscribe: opts.graph.subscribe as never,
    onNext: (_ctx, _req, result) => (result.errors ? { ...result, errors: result.errors.map((e) => formatExecutionError(e, opts.log)) } as never : undefined),
  });

  return (req, res, next) => {
    const accept = req.get('accept') ?? '';
    const fail = (err: unknown) => {
      if (res.headersSent) {
        opts.log.error({ err }, 'streamed operation failed');
        res.destroy();
      } else {
        next(err);
      }
    };
    if (req.method === 'POST' && accept === 'text/event-stream') return void sse(req, res).catch(fail);
    if (req.method !== 'POST' && req.method !== 'GET') return next();
    const body = req.method === 'POST' ? req.body : req.query;
    const kind = operationKind(body);
    // A broken subscription sent for multipart gets its syntax error here: Apollo would answer 406,
    // as it cannot answer JSON to a client that accepts only multipart.
    if (kind === 'unparsable' && req.method === 'POST' && wantsMultipart(accept)) {
      const refused = prepare(body as OperationPayload);
      if (Array.isArray(refused)) return void res.status(400).json(refusal(refused));
    }
    if (kind !== 'subscription') return next();
    if (req.method === 'GET' || !wantsMultipart(accept)) {
      return next(new BadRequest('A subscription is streamed: subscribe over graphql-ws (a WebSocket to this URL), or POST it with '
        + '`Accept: text/event-stream` (GraphQL over SSE) or `Accept: multipart/mixed;subscriptionSpec=1.0`', { code: 'SUBSCRIPTIONS_NOT_SUPPORTED' }));
    }
    const payload = body as OperationPayload;
    const document = prepare(payload);
    if (Array.isArray(document)) return void res.status(400).json(refusal(document));
    multipart(req, res, opts, document as DocumentNode, payload).catch(fail);
  };
}
