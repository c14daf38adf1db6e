import type { Request, Response } from 'express';
import { DEFAULT_STREAM_HEARTBEAT_MS } from '../../core/shared/config';
import { PlatformError } from '../../core/shared/errors';
import { openStream, pipeStream, type Producer } from '../../edge/http/event-stream';
import { NDJSON_HEAD, SSE_HEAD, ndjsonLine, sseComment, sseEvent } from '../../edge/http/stream-frames';

/**
 * The REST faces' streams of JSON objects, written by the edge's one writer (edge/http/event-stream.ts):
 * server-sent events (`data: {...}` per event, `data: [DONE]` at the end) or, when the caller asks
 * with `Accept: application/x-ndjson`, one object per line. `signal` aborts when the caller goes
 * away, so producers (model streams) can stop.
 */
export interface ObjectStream {
  readonly format: 'sse' | 'ndjson';
  readonly signal: AbortSignal;
  /**
   * Writes one object. The promise resolves at once while the socket keeps up, else when it has
   * drained (or the caller has gone); await it so a fast producer cannot pile up memory. Never rejects.
   */
  send(value: unknown): Promise<void>;
  end(): void;
}

export interface StreamOptions {
  /** Between `: ping` comments of an SSE stream (STREAM_HEARTBEAT_MS, the route context's heartbeatMs). */
  heartbeatMs?: number;
  /**
   * SSE as OpenAI's Responses API writes it: each event named by its object's `type`
   * (`event: response.created`), and no `data: [DONE]` at the end.
   */
  typedEvents?: boolean;
}

export const wantsNdjson = (req: Request) => (req.get('accept') ?? '').includes('application/x-ndjson');

/** How objects are framed, for the caller's Accept header and the options. */
function objectFraming(req: Request, opts: StreamOptions) {
  const format: 'sse' | 'ndjson' = wantsNdjson(req) ? 'ndjson' : 'sse';
  const sse = format === 'sse';
  return {
    format,
    stream: {
      headers: sse ? SSE_HEAD : NDJSON_HEAD,
      // SSE comments keep idle proxies from closing the connection while a model thinks.
      heartbeat: sse ? { frame: sseComment('ping'), everyMs: opts.heartbeatMs ?? DEFAULT_STREAM_HEARTBEAT_MS } : undefined,
    },
    frame: (value: unknown) => {
      const json = JSON.stringify(value);
      return sse ? sseEvent(json, opts.typedEvents ? `${(value as { type?: string }).type}` : undefined) : ndjsonLine(json);
    },
    last: () => (sse && !opts.typedEvents ? sseEvent('[DONE]') : undefined),
  };
}

export function openObjectStream(req: Request, res: Response, opts: StreamOptions = {}): ObjectStream {
  const framing = objectFraming(req, opts);
  const stream = openStream(res, framing.stream);
  return {
    format: framing.format,
    signal: stream.signal,
    send: (value) => stream.write(framing.frame(value)),
    end: () => stream.end(framing.last()),
  };
}

export interface PipeOptions extends StreamOptions {
  /** The last object written when the producer fails midway (chat: `{"finish_reason":"error", ...}`). */
  errorEvent?: (err: unknown) => unknown;
  /** Told of a failure midway (the caller only sees errorEvent's object), e.g. to log it. */
  onError?: (err: unknown) => void;
}

/** `{"error":{"message"}}`: an exposed PlatformError's message, else a generic one (never a stack). */
export const defaultErrorEvent = (err: unknown) => ({
  error: { message: err instanceof PlatformError && err.expose ? err.message : 'Internal server error' },
});

/**
 * Streams what a producer yields, one object per event (pipeStream). Nothing is sent before the
 * first object, so a failure before it throws and the router's error handler answers with a status
 * (spec: upstream failures are 502/504 `{"detail"}`); a failure midway writes `errorEvent(err)` and
 * ends the stream normally (SSE: `data: [DONE]`).
 */
export function streamObjects(req: Request, res: Response, produce: Producer<unknown>, opts: PipeOptions = {}): Promise<void> {
  const framing = objectFraming(req, opts);
  return pipeStream(res, produce, {
    ...framing.stream,
    frame: framing.frame,
    failure(err) {
      opts.onError?.(err);
      return framing.frame((opts.errorEvent ?? defaultErrorEvent)(err));
    },
    last: framing.last,
  });
}
