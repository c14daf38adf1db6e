import { randomBytes } from 'node:crypto';
import type { Request, Response } from 'express';
import type { DocumentNode } from 'graphql';
import type { TokenVerifier } from '../core/shared/auth/verifier';
import { BadRequest, Conflict, NotFound, RateLimited } from '../core/shared/errors';
import { contextFrom } from '../edge/graphql/context';
import type { OperationPayload } from '../edge/graphql/prepare';
import { INTERNAL_ERROR, relay, startOperation, stopOutcome, type Outcome } from './relay';
import { openEventStream, sseEvent, type EventStream, type SseOptions } from './sse';

/** Where graphql-sse's client puts the stream's token (`x-graphql-event-stream-token`, or `?token=`). */
export const TOKEN_HEADER = 'x-graphql-event-stream-token';

export interface SingleConnectionOptions extends SseOptions {
  /** Verifies the caller's bearer token at the reservation and at every later request of its stream. */
  verifier: TokenVerifier;
  /** Streams (reserved or open) one caller may hold at once (default 10). */
  maxStreamsPerCaller?: number;
  /** A reservation whose stream is not opened within this is dropped (default 30000 ms). */
  reservationTtlMs?: number;
  /** Operations running at once on one stream (default 20, as on one graphql-ws socket). */
  maxOperationsPerStream?: number;
}

interface Reservation {
  token: string;
  /** The caller who reserved it: realm and subject of the verified bearer token. */
  owner: string;
  expiry: NodeJS.Timeout;
  stream?: EventStream;
  /** Resolves with the stream once it is open, or undefined if the reservation is dropped first. */
  opened: Promise<EventStream | undefined>;
  settle(stream: EventStream | undefined): void;
  /** Operations by the client's id: null while starting, then their outcome. */
  ops: Map<string, Outcome | null>;
}

/** The stream token of a request: the header, else the `token` query parameter. */
export const tokenOf = (req: Request): string | undefined =>
  req.get(TOKEN_HEADER) || new URLSearchParams(req.originalUrl.split('?')[1] ?? '').get('token') || undefined;

/**
 * graphql-sse's single connection mode: `PUT` reserves a stream and answers its token; a GET or POST
 * with the token and `Accept: text/event-stream` opens it; each operation is then a POST (or GET)
 * with the token and `extensions.operationId`, answered 202, its results arriving on the stream as
 * `next {id, payload}` then `complete {id}`; `DELETE ?operationId=` stops one operation. Every request
 * presents the caller's bearer token, verified, and must be the caller who reserved the stream;
 * each operation's own credentials then reach the subgraphs as over any transport. Bounded:
 * streams per caller, operations per stream, and a reservation unused for reservationTtlMs is
 * dropped. When the stream closes, its operations end (and the model calls behind them).
 * Reservations live in this process: with WORKERS > 1 behind one port, or several replicas, a
 * client's requests may reach another process, which does not know the token (404).
 */
export function singleConnections(opts: SingleConnectionOptions) {
  const maxStreams = opts.maxStreamsPerCaller ?? 10;
  const ttlMs = opts.reservationTtlMs ?? 30_000;
  const maxOperations = opts.maxOperationsPerStream ?? 20;
  const reservations = new Map<string, Reservation>();

  const ownerOf = async (req: Request) => {
    const caller = await opts.verifier.authenticate(req.get('authorization'));
    return `${caller.realm}\n${caller.subject}`;
  };

  const drop = (r: Reservation) => {
    if (reservations.get(r.token) !== r) return;
    reservations.delete(r.token);
    clearTimeout(r.expiry);
    for (const op of r.ops.values()) if (op) stopOutcome(op);
    r.ops.clear();
    r.settle(undefined);
    r.stream?.end();
  };

  /** The caller's own reservation named by the request's token (someone else's is not found either). */
  const owned = async (req: Request): Promise<Reservation> => {
    const owner = await ownerOf(req);
    const r = reservations.get(tokenOf(req) ?? '');
    if (r?.owner === owner) return r;
    throw new NotFound(`Stream not found: reserve one with PUT (a reservation not connected within ${ttlMs / 1000} s is dropped); `
      + 'with several worker processes or replicas, a stream is known only to the process that reserved it', { code: 'STREAM_NOT_FOUND' });
  };

  const reserve = async (req: Request, res: Response) => {
    const owner = await ownerOf(req);
    if ([...reservations.values()].filter((r) => r.owner === owner).length >= maxStreams) {
      throw new RateLimited(`At most ${maxStreams} event streams, reserved or open, per caller`, Math.ceil(ttlMs / 1000), { code: 'TOO_MANY_STREAMS' });
    }
    let settle!: Reservation['settle'];
    const opened = new Promise<EventStream | undefined>((resolve) => (settle = resolve));
    const r: Reservation = { token: randomBytes(24).toString('base64url'), owner, opened, settle, ops: new Map(), expiry: setTimeout(() => drop(r), ttlMs) };
    r.expiry.unref();
    reservations.set(r.token, r);
    res.status(201).set('content-type', 'text/plain; charset=utf-8').end(r.token);
  };

  const open = async (req: Request, res: Response) => {
    const r = await owned(req);
    if (r.stream) throw new Conflict('Stream already open', { code: 'STREAM_ALREADY_OPEN' });
    clearTimeout(r.expiry);
    r.stream = openEventStream(res, opts.heartbeatMs);
    res.once('close', () => drop(r));
    r.settle(r.stream);
  };

  const cancel = async (req: Request, res: Response) => {
    const r = await owned(req);
    const id = new URLSearchParams(req.originalUrl.split('?')[1] ?? '').get('operationId');
    if (!id) throw new BadRequest('Operation ID is missing: DELETE ?operationId=<id>', { code: 'BAD_REQUEST' });
    const op = r.ops.get(id);
    r.ops.delete(id);
    if (op) stopOutcome(op);
    res.status(200).end();
  };

  return {
    /** Whether the request belongs to this mode: a reservation, a cancellation, or a request naming a stream. */
    handles: (req: Request) => req.method === 'PUT' || req.method === 'DELETE' || ((req.method === 'GET' || req.method === 'POST') && tokenOf(req) !== undefined),
    /** PUT, DELETE, or opening the stream (the request asks for text/event-stream). */
    control: (req: Request, res: Response): Promise<void> => (req.method === 'PUT' ? reserve(req, res) : req.method === 'DELETE' ? cancel(req, res) : open(req, res)),
    /** Checks the request's stream before its operation is read (the caller and the operation id). */
    async admit(req: Request, payload: OperationPayload & { extensions?: Record<string, unknown> | null }): Promise<{ r: Reservation; id: string }> {
      const r = await owned(req);
      const id = payload.extensions?.operationId;
      if (typeof id !== 'string' || !id || id.length > 128) throw new BadRequest('Operation ID is missing: send it as extensions.operationId (at most 128 characters)', { code: 'BAD_REQUEST' });
      if (r.ops.has(id)) throw new Conflict('Operation with ID already exists', { code: 'OPERATION_ID_TAKEN' });
      if (r.ops.size >= maxOperations) throw new BadRequest(`At most ${maxOperations} operations run at once on one event stream`, { code: 'TOO_MANY_OPERATIONS' });
      return { r, id };
    },
    /** Runs an admitted operation: 202 now, its results on the stream once it is open. */
    async run(req: Request, res: Response, { r, id }: { r: Reservation; id: string }, kind: 'subscription' | 'other', document: DocumentNode, payload: OperationPayload) {
      r.ops.set(id, null);
      const context = contextFrom(req, { answeredInResponse: false });
      res.status(202).end();
      let outcome: Outcome;
      try {
        outcome = await startOperation(opts.graph, kind, document, payload, context);
      } catch (err) {
        opts.log.error({ err }, 'operation failed to start');
        outcome = { errors: [INTERNAL_ERROR] };
      }
      const live = () => r.ops.has(id) && reservations.get(r.token) === r;
      if (!live()) return stopOutcome(outcome);
      r.ops.set(id, outcome);
      const stream = await r.opened;
      if (!stream || !live()) return stopOutcome(outcome);
      await relay(outcome, {
        send: (result) => stream.write(sseEvent('next', { id, payload: result })),
        failed: () => stream.write(sseEvent('next', { id, payload: { errors: [INTERNAL_ERROR] } })),
        stopped: () => stream.gone || !live(),
        log: opts.log,
      });
      // Completed by the server (a client that cancelled knows it is over).
      if (r.ops.delete(id)) await stream.write(sseEvent('complete', { id }));
    },
    close() {
      for (const r of [...reservations.values()]) drop(r);
    },
  };
}

export type SingleConnections = ReturnType<typeof singleConnections>;
