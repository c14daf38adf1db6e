import type { OperationPayload } from '../../edge/graphql/prepare';

/**
 * Where graphql-sse's single connection mode keeps its streams so that every process serving the
 * graph agrees on them: a client's reservation (PUT), its stream (GET or POST with Accept:
 * text/event-stream) and its operations (POST, DELETE) are separate HTTP requests, which reach
 * whichever worker or replica the connection lands on. The stream is held by the process whose
 * response carries it; every other request is routed to that process, which runs the operation
 * and writes its results on the stream it holds (events never cross processes). Three transports,
 * one behaviour: this process alone (local.ts), the workers of one host through the cluster's
 * primary (ipc.ts), any replicas through Redis (redis.ts).
 */

/** An operation of a stream, as the request that carried it gave it (the holder runs it with these credentials). */
export interface HubOperation {
  /** The client's `extensions.operationId`. */
  id: string;
  payload: OperationPayload & { extensions?: Record<string, unknown> | null };
  kind: 'subscription' | 'other';
  /** The request's forwarded headers (authorization, api-key, x-request-id). */
  headers: Record<string, string | undefined>;
  clientAddress?: string;
  requestId?: string;
  /** The request's W3C trace context, so the operation's span joins the request's trace. */
  traceparent?: string;
}

/** What a request asks of the stream's holder. */
export type HubMessage = { type: 'operation'; token: string; op: HubOperation } | { type: 'cancel'; token: string; id: string };

/** Why a request about a stream is refused (the HTTP answer it gets: 404, 409, 400). */
export type HubRefusal = 'not_found' | 'taken' | 'too_many';

/** The holder's answer: accepted (202 an operation, 200 a cancellation), or refused. */
export type HubReply = { ok: true } | { refused: HubRefusal };

export interface ReserveBounds {
  /** Streams, reserved or open, one owner may hold at once. */
  maxStreams: number;
  /** A reservation whose stream is not opened within this is dropped. */
  ttlMs: number;
}

export type Opened = { opened: true; queued: HubOperation[] } | { opened: false; why: 'not_found' | 'already_open' };

export interface StreamHub {
  /** Records a reservation of `owner`; false when the owner already holds maxStreams. */
  reserve(token: string, owner: string, bounds: ReserveBounds): Promise<boolean>;
  /** Makes this process the stream's holder; the operations sent before it opened come with it. */
  open(token: string, owner: string): Promise<Opened>;
  /**
   * Delivers a request to the stream's holder (this process's handler, or another's), or, before
   * the stream is open, keeps an operation for it (at most maxQueued, distinct ids). Another owner's
   * stream is not found.
   */
  send(owner: string, msg: HubMessage, maxQueued: number): Promise<HubReply>;
  /** The stream this process held has ended (its client left, or the process stops). */
  closed(token: string): Promise<void>;
  /** What this process does with a message for a stream it holds. */
  serve(handler: (msg: HubMessage) => Promise<HubReply>): void;
  /** Told when a stream held here is no longer known to the others (its record expired in an outage): end it. */
  lost?(listener: (token: string) => void): void;
  close(): Promise<void>;
}
