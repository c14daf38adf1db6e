import type { Request, Response } from 'express';
import type { DocumentNode } from 'graphql';
import type { Logger } from 'pino';
import { contextFrom } from '../edge/graphql/context';
import { DEFAULT_STREAM_HEARTBEAT_MS } from '../core/shared/config';
import { openStream, type EventStream as Stream } from '../edge/http/event-stream';
import { SSE_HEAD, sseComment, sseEvent as frame } from '../edge/http/stream-frames';
import type { OperationPayload } from '../edge/graphql/prepare';
import type { SocketGraph } from '../edge/graphql/ws';
import { INTERNAL_ERROR, relay, startOperation, stopOnClose } from './relay';

/** GraphQL over Server-Sent Events (graphql-sse's protocol): the event stream both of its modes write. */
export interface SseOptions {
  graph: Required<SocketGraph>;
  log: Logger;
  /** Between keep-alive comments (`:`), STREAM_HEARTBEAT_MS; default 10000 ms. */
  heartbeatMs?: number;
}

/** One event: `next` with a result (or `{id, payload}` in single-connection mode), `complete` (`{id}` there, nothing in distinct mode). */
export const sseEvent = (event: 'next' | 'complete', data?: unknown) => frame(data === undefined ? undefined : JSON.stringify(data), event);

/** An open event stream (the edge's writer): its writes, and `end()` to stop its keep-alives and finish the response. */
export type EventStream = Pick<Stream, 'write' | 'gone' | 'end'>;

/**
 * Starts an event stream on `res`: 200 with its headers (no buffering by a proxy on the way), a
 * first comment at once (some browsers show nothing before a first chunk), then a comment every
 * heartbeatMs (STREAM_HEARTBEAT_MS) while the stream is idle. It counts among the open streams until the response closes.
 */
export function openEventStream(res: Response, heartbeatMs = DEFAULT_STREAM_HEARTBEAT_MS): EventStream {
  return openStream(res, { headers: SSE_HEAD, opening: sseComment(), heartbeat: { frame: sseComment(), everyMs: heartbeatMs } });
}

/**
 * The distinct connections mode: one operation per request (GET or POST), its results as `next`
 * events, then `complete` and the end of the response. A query or mutation is one `next`. The client
 * going away ends the subscription, and so the model call behind it.
 */
export async function distinctStream(
  req: Request,
  res: Response,
  opts: SseOptions,
  kind: 'subscription' | 'other',
  document: DocumentNode,
  payload: OperationPayload,
) {
  const outcome = await startOperation(opts.graph, kind, document, payload, contextFrom(req));
  const stream = openEventStream(res, opts.heartbeatMs);
  const unwatch = stopOnClose(res, outcome);
  try {
    await relay(outcome, {
      send: (result) => stream.write(sseEvent('next', result)),
      failed: () => stream.write(sseEvent('next', { errors: [INTERNAL_ERROR] })),
      stopped: () => stream.gone,
      log: opts.log,
    });
    await stream.write(sseEvent('complete'));
  } finally {
    unwatch();
    stream.end();
  }
}
