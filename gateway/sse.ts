import type { Request, Response } from 'express';
import type { DocumentNode } from 'graphql';
import type { Logger } from 'pino';
import { contextFrom } from '../edge/graphql/context';
import { streamOpened } from '../edge/http/telemetry';
import type { OperationPayload } from '../edge/graphql/prepare';
import type { SocketGraph } from '../edge/graphql/ws';
import { INTERNAL_ERROR, relay, responseWriter, startOperation, stopOnClose, type Writer } from './relay';

/** GraphQL over Server-Sent Events (graphql-sse's protocol): the event stream both of its modes write. */
export interface SseOptions {
  graph: Required<SocketGraph>;
  log: Logger;
  /** Between keep-alive comments (`:`), default 10000 ms. */
  heartbeatMs?: number;
}

/** One event: `next` with a result (or `{id, payload}` in single-connection mode), `complete` (`{id}` there, nothing in distinct mode). */
export const sseEvent = (event: 'next' | 'complete', data?: unknown) => `event: ${event}\ndata:${data === undefined ? '' : ` ${JSON.stringify(data)}`}\n\n`;

/** An open event stream: its writer, and `end()` to stop its keep-alives and finish the response. */
export interface EventStream extends Writer {
  end(): void;
}

/**
 * Starts an event stream on `res`: 200 with its headers (no buffering by a proxy on the way), a
 * first comment at once (some browsers show nothing before a first chunk), then a comment every
 * heartbeatMs while the stream is idle. It counts among the open streams until the response closes.
 */
export function openEventStream(res: Response, heartbeatMs = 10_000): EventStream {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache, no-transform', connection: 'keep-alive', 'x-accel-buffering': 'no',
  });
  streamOpened(res.req, res);
  const writer = responseWriter(res);
  void writer.write(':\n\n');
  const heartbeat = setInterval(() => void (res.writableNeedDrain || writer.write(':\n\n')), heartbeatMs);
  heartbeat.unref();
  res.once('close', () => clearInterval(heartbeat));
  return {
    get gone() {
      return writer.gone;
    },
    write: writer.write,
    end() {
      clearInterval(heartbeat);
      if (!res.writableEnded && !res.destroyed) res.end();
    },
  };
}

/**
 * The distinct connections mode: one operation per request (GET or POST), its results as `next`
 * events, then `complete` and the end of the response. A query or mutation is one `next`. The client
 * going away ends the subscription, and so the model call behind it.
 */
export async function distinctStream(req: Request, res: Response, opts: SseOptions, kind: 'subscription' | 'other', document: DocumentNode, payload: OperationPayload) {
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
