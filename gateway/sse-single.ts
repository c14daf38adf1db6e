import { randomBytes } from 'node:crypto';
import type { Request, Response } from 'express';
import type { DocumentNode, GraphQLError } from 'graphql';
import type { TokenVerifier } from '../core/shared/auth/verifier';
import { BadRequest, Conflict, NotFound, RateLimited } from '../core/shared/errors';
import { injectTrace } from '../core/shared/telemetry/tracing';
import { contextFrom, type GraphContext } from '../edge/graphql/context';
import { formatExecutionError } from '../edge/graphql/errors';
import { isRefusal, type OperationPayload } from '../edge/graphql/prepare';
import { operationTrace } from '../edge/graphql/trace';
import { INTERNAL_ERROR, relay, startOperation, stopOutcome, type Outcome } from './relay';
import { openEventStream, sseEvent, type EventStream, type SseOptions } from './sse';
import type { HubMessage, HubOperation, HubRefusal, HubReply, StreamHub } from './stream-hub/hub';
import { localStreamHub } from './stream-hub/local';

/** Where graphql-sse's client puts the stream's token (`x-graphql-event-stream-token`, or `?token=`). */
export const TOKEN_HEADER = 'x-graphql-event-stream-token';

export interface SingleConnectionOptions extends SseOptions {
  /** Verifies the caller's bearer token at the reservation and at every later request of its stream. */
  verifier: TokenVerifier;
  /** Readies an operation the holder runs (bounded, parsed, validated), as the request's process did. */
  prepare(payload: OperationPayload): DocumentNode | readonly GraphQLError[];
  /** Where the streams are known to every process (default: this process alone). */
  hub?: StreamHub;
  /** Streams (reserved or open) one caller may hold at once (default 10). */
  maxStreamsPerCaller?: number;
  /** A reservation whose stream is not opened within this is dropped (default 30000 ms). */
  reservationTtlMs?: number;
  /** Operations running at once on one stream (default 20, as on one graphql-ws socket). */
  maxOperationsPerStream?: number;
}

/** A stream this process holds: its response, and its operations by the client's id (null while starting). */
interface Held {
  stream: EventStream;
  ops: Map<string, Outcome | null>;
}

/** The stream token of a request: the header, else the `token` query parameter. */
export const tokenOf = (req: Request): string | undefined => {
  const header = req.headers[TOKEN_HEADER] as string | undefined;
  if (header) return header;
  // Most requests have no query string at all: none is parsed for them.
  const query = req.originalUrl.indexOf('?');
  return (query >= 0 && new URLSearchParams(req.originalUrl.slice(query + 1)).get('token')) || undefined;
};

/**
 * graphql-sse's single connection mode: `PUT` reserves a stream and answers its token; a GET or POST
 * with the token and `Accept: text/event-stream` opens it; each operation is then a POST (or GET)
 * with the token and `extensions.operationId`, answered 202, its results arriving on the stream as
 * `next {id, payload}` then `complete {id}`; `DELETE ?operationId=` stops one operation. Every request
 * presents the caller's bearer token, verified, and must be the caller who reserved the stream;
 * each operation's own credentials then reach the subgraphs as over any transport. Bounded:
 * streams per caller, operations per stream, and a reservation unused for reservationTtlMs is
 * dropped. When the stream closes, its operations end (and the model calls behind them).
 * The streams are kept in the hub, so each of these requests may reach any worker or replica: the
 * process whose response carries the stream runs its operations (stream-hub/hub.ts).
 */
export function singleConnections(opts: SingleConnectionOptions) {
  const maxStreams = opts.maxStreamsPerCaller ?? 10;
  const ttlMs = opts.reservationTtlMs ?? 30_000;
  const maxOperations = opts.maxOperationsPerStream ?? 20;
  const hub = opts.hub ?? localStreamHub();
  const held = new Map<string, Held>();

  const ownerOf = async (req: Request) => {
    const caller = await opts.verifier.authenticate(req.get('authorization'));
    return `${caller.realm}\n${caller.subject}`;
  };

  const notFound = () =>
    new NotFound(`Stream not found: reserve one with PUT (a reservation not connected within ${ttlMs / 1000} s is dropped)`, {
      code: 'STREAM_NOT_FOUND',
    });
  const refusal = (why: HubRefusal) =>
    why === 'not_found'
      ? notFound()
      : why === 'taken'
        ? new Conflict('Operation with ID already exists', { code: 'OPERATION_ID_TAKEN' })
        : new BadRequest(`At most ${maxOperations} operations run at once on one event stream`, { code: 'TOO_MANY_OPERATIONS' });
  const answered = (reply: HubReply) => {
    if ('refused' in reply) throw refusal(reply.refused);
  };

  /** Ends a stream held here and its operations. */
  const drop = (token: string) => {
    const h = held.get(token);
    if (!h) return;
    held.delete(token);
    for (const op of h.ops.values()) if (op) stopOutcome(op);
    h.ops.clear();
    h.stream.end();
    void hub.closed(token);
  };

  /** Runs an operation on a stream held here; its results are written on the stream. */
  const run = async (token: string, h: Held, op: HubOperation) => {
    h.ops.set(op.id, null);
    const live = () => h.ops.has(op.id) && held.get(token) === h;
    const document = opts.prepare(op.payload);
    let outcome: Outcome;
    if (isRefusal(document)) {
      outcome = { errors: document.map((e) => formatExecutionError(e, opts.log)) };
    } else {
      const context: GraphContext = {
        headers: op.headers,
        clientAddress: op.clientAddress,
        requestId: op.requestId,
        callers: new Map(),
        memo: new Map(),
        trace: op.traceparent ? operationTrace({ traceparent: op.traceparent }, undefined) : undefined,
      };
      try {
        outcome = await startOperation(opts.graph, op.kind, document, op.payload, context);
      } catch (err) {
        opts.log.error({ err }, 'operation failed to start');
        outcome = { errors: [INTERNAL_ERROR] };
      }
    }
    if (!live()) return stopOutcome(outcome);
    h.ops.set(op.id, outcome);
    await relay(outcome, {
      send: (result) => h.stream.write(sseEvent('next', { id: op.id, payload: result })),
      failed: () => h.stream.write(sseEvent('next', { id: op.id, payload: { errors: [INTERNAL_ERROR] } })),
      stopped: () => h.stream.gone || !live(),
      log: opts.log,
    });
    // Completed by the server (a client that cancelled knows it is over).
    if (h.ops.delete(op.id)) await h.stream.write(sseEvent('complete', { id: op.id }));
  };

  /** A request for a stream this process holds, from whichever process received it. */
  hub.serve(async (msg: HubMessage): Promise<HubReply> => {
    const h = held.get(msg.token);
    if (!h) return { refused: 'not_found' };
    if (msg.type === 'cancel') {
      const op = h.ops.get(msg.id);
      h.ops.delete(msg.id);
      if (op) stopOutcome(op);
      return { ok: true };
    }
    if (h.ops.has(msg.op.id)) return { refused: 'taken' };
    if (h.ops.size >= maxOperations) return { refused: 'too_many' };
    void run(msg.token, h, msg.op);
    return { ok: true };
  });
  hub.lost?.(drop);

  const reserve = async (req: Request, res: Response) => {
    const owner = await ownerOf(req);
    const token = randomBytes(24).toString('base64url');
    if (!(await hub.reserve(token, owner, { maxStreams, ttlMs }))) {
      throw new RateLimited(`At most ${maxStreams} event streams, reserved or open, per caller`, Math.ceil(ttlMs / 1000), {
        code: 'TOO_MANY_STREAMS',
      });
    }
    res.status(201).set('content-type', 'text/plain; charset=utf-8').end(token);
  };

  const open = async (req: Request, res: Response) => {
    const owner = await ownerOf(req);
    const token = tokenOf(req) ?? '';
    const opened = await hub.open(token, owner);
    if (!opened.opened)
      throw opened.why === 'already_open' ? new Conflict('Stream already open', { code: 'STREAM_ALREADY_OPEN' }) : notFound();
    const h: Held = { stream: openEventStream(res, opts.heartbeatMs), ops: new Map() };
    held.set(token, h);
    res.once('close', () => drop(token));
    for (const op of opened.queued) void run(token, h, op);
  };

  const cancel = async (req: Request, res: Response) => {
    const owner = await ownerOf(req);
    const id = new URLSearchParams(req.originalUrl.split('?')[1] ?? '').get('operationId');
    if (!id) throw new BadRequest('Operation ID is missing: DELETE ?operationId=<id>', { code: 'BAD_REQUEST' });
    answered(await hub.send(owner, { type: 'cancel', token: tokenOf(req) ?? '', id }, maxOperations));
    res.status(200).end();
  };

  return {
    /** Whether the request belongs to this mode: a reservation, a cancellation, or a request naming a stream. */
    handles: (req: Request) =>
      req.method === 'PUT' || req.method === 'DELETE' || ((req.method === 'GET' || req.method === 'POST') && tokenOf(req) !== undefined),
    /** PUT, DELETE, or opening the stream (the request asks for text/event-stream). */
    control: (req: Request, res: Response): Promise<void> =>
      req.method === 'PUT' ? reserve(req, res) : req.method === 'DELETE' ? cancel(req, res) : open(req, res),
    /** Checks an operation's request before its document is read: the caller's token and the operation id. */
    async admit(
      req: Request,
      payload: OperationPayload & { extensions?: Record<string, unknown> | null },
    ): Promise<{ owner: string; id: string }> {
      const owner = await ownerOf(req);
      const id = payload.extensions?.operationId;
      if (typeof id !== 'string' || !id || id.length > 128)
        throw new BadRequest('Operation ID is missing: send it as extensions.operationId (at most 128 characters)', {
          code: 'BAD_REQUEST',
        });
      return { owner, id };
    },
    /** Hands an admitted, prepared operation to its stream's holder: 202, its results on the stream once it is open. */
    async run(
      req: Request,
      res: Response,
      { owner, id }: { owner: string; id: string },
      kind: 'subscription' | 'other',
      payload: OperationPayload,
    ) {
      const context = contextFrom(req, { answeredInResponse: false });
      const trace = injectTrace({}, context.trace);
      const op: HubOperation = {
        id,
        kind,
        payload,
        headers: context.headers,
        clientAddress: context.clientAddress,
        requestId: context.requestId,
        ...(trace.traceparent ? { traceparent: trace.traceparent } : {}),
      };
      answered(await hub.send(owner, { type: 'operation', token: tokenOf(req) ?? '', op }, maxOperations));
      res.status(202).end();
    },
    close() {
      for (const token of [...held.keys()]) drop(token);
    },
  };
}

export type SingleConnections = ReturnType<typeof singleConnections>;
