import type { Request, RequestHandler, Response } from 'express';
import { getOperationAST, OperationTypeNode, type DocumentNode, type FormattedExecutionResult, type GraphQLSchema } from 'graphql';
import type { Logger } from 'pino';
import { better, listed, mediaRanges } from '../../edge/graphql/accept';
import { contextFrom } from '../../edge/graphql/context';
import { refuseCrossSite } from '../../edge/graphql/csrf';
import { formatExecutionError } from '../../edge/graphql/errors';
import type { GraphqlLimits } from '../../edge/graphql/limits';
import { isRefusal, operationPreparer } from '../../edge/graphql/prepare';
import { openStream } from '../../edge/http/event-stream';
import { multipartFraming } from '../../edge/http/stream-frames';
import { claimedBy } from '../claimed';
import { INTERNAL_ERROR, relay, stopOnClose, type Outcome } from '../relay';
import { operationOf, queryParams, refuseMutationOverGet } from '../streaming';
import type { DeferredOutcome, DeferredRequest } from './deferred';
import { mayDefer, type LabelledOperation } from './document';

export interface DeferOverHttpOptions {
  /** The API schema (`@defer` declared) operations are validated against. */
  schema: GraphQLSchema;
  limits: GraphqlLimits;
  log: Logger;
  introspection?: boolean;
  /** The operation ready to run in parts (deferred.ts); undefined without a `@defer`. */
  prepare(
    document: DocumentNode,
    operationName: string | null | undefined,
    variables: Record<string, unknown>,
  ): LabelledOperation | undefined;
  /** Runs the operation (counted and in its span, as the gateway's other operations). */
  execute(request: DeferredRequest): Promise<DeferredOutcome>;
}

/** The 2022-08-24 draft's multipart framing, as Apollo's router serves it: boundary `-`, one JSON part per payload, `-----` at the end. */
export const DEFER_MULTIPART = multipartFraming('-', ';deferSpec=20220824');

/**
 * Whether the client takes parts: it lists `multipart/mixed` (not for subscriptions: no
 * `subscriptionSpec` alone) with `deferSpec=20220824` or no spec at all, as Apollo Client
 * (`multipart/mixed;deferSpec=20220824, application/json`) and urql (`..., multipart/mixed`) do.
 */
export function takesParts(accept: string | undefined): boolean {
  return !!listed(mediaRanges(accept), 'multipart/mixed', (r) =>
    'deferspec' in r.params ? r.params.deferspec === '20220824' : !('subscriptionspec' in r.params),
  );
}

/** The JSON type of a one-result answer: `application/graphql-response+json` when the client prefers it, else `application/json`. */
function jsonType(accept: string | undefined): string {
  const ranges = mediaRanges(accept);
  const preferred = better(listed(ranges, 'application/json'), listed(ranges, 'application/graphql-response+json'));
  return preferred?.type === 'application/graphql-response+json' ? preferred.type : 'application/json';
}

async function sendParts(res: Response, outcome: Outcome, log: Logger): Promise<void> {
  const stream = openStream(res, { headers: DEFER_MULTIPART.head });
  const unwatch = stopOnClose(res, outcome);
  const write = (payload: unknown) => stream.write(DEFER_MULTIPART.part(JSON.stringify(payload)));
  try {
    await relay(outcome, {
      send: write,
      failed: () => write({ hasNext: false, errors: [INTERNAL_ERROR] }),
      stopped: () => stream.gone,
      log,
    });
  } finally {
    unwatch();
    stream.end(DEFER_MULTIPART.end);
  }
}

/**
 * Queries and mutations with `@defer` over HTTP (GET or POST /graphql), between the document guard
 * and Apollo Server (whose gateway path does not execute `@defer`): Apollo's CSRF prevention,
 * validation against the API schema, no mutation from a GET; then multipart/mixed parts for a
 * client that takes them, one JSON result with the deferred fragments inline for any other (as the
 * GraphQL over HTTP spec requires). GraphQL over SSE is the streaming transports' (gateway/streaming.ts).
 * The client going away stops the parts still to come.
 */
export function deferOverHttp(opts: DeferOverHttpOptions): RequestHandler {
  const validate = operationPreparer(opts.schema, opts.limits, opts.introspection !== false);
  /** Leaves at once (synchronously) what cannot defer anything, most requests. */
  const route = (req: Request, res: Response): boolean | Promise<boolean> => {
    if (req.method !== 'POST' && req.method !== 'GET') return false;
    const raw = (req.method === 'POST' ? req.body : Object.fromEntries(queryParams(req))) as { query?: unknown } | undefined;
    return mayDefer(raw?.query) ? answer(req, res) : false;
  };
  const answer = async (req: Request, res: Response): Promise<boolean> => {
    refuseCrossSite(req);
    // An operation with deferred parts is never cached (docs/graphql-caching.md), in parts or whole.
    res.setHeader('cache-control', 'no-store');
    const payload = operationOf(req);
    const document = validate(payload);
    if (isRefusal(document)) {
      res.status(400).json({ errors: document.map((e) => formatExecutionError(e, opts.log)) });
      return true;
    }
    const type = getOperationAST(document, payload.operationName ?? undefined)?.operation;
    if (type === OperationTypeNode.SUBSCRIPTION) return false;
    if (req.method === 'GET' && type === OperationTypeNode.MUTATION) {
      refuseMutationOverGet(res);
      return true;
    }
    const variables = payload.variables ?? {};
    const operation = opts.prepare(document, payload.operationName, variables);
    if (!operation) return false;
    const accept = req.get('accept');
    const incremental = takesParts(accept);
    const outcome = (await opts.execute({ operation, variables, context: contextFrom(req), incremental })) as Outcome;
    if (incremental && Symbol.asyncIterator in outcome) {
      await sendParts(res, outcome, opts.log);
      return true;
    }
    const result = outcome as FormattedExecutionResult;
    const errors = result.errors?.map((e) => formatExecutionError(e, opts.log));
    res
      .status(200)
      .type(jsonType(accept))
      .send(JSON.stringify({ ...result, ...(errors ? { errors } : {}) }));
    return true;
  };
  return claimedBy(route, opts.log, 'deferred operation failed');
}
