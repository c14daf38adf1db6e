import type { Request, Response } from 'express';
import { CallerLeft } from '../../core/shared/cancel';
import { PlatformError } from '../../core/shared/errors';
import { streamOpened } from '../../edge/http/telemetry';

/**
 * A response that streams JSON objects: server-sent events (`data: {...}` per event, `data: [DONE]`
 * at the end) or, when the caller asks with `Accept: application/x-ndjson`, one object per line.
 * `signal` aborts when the caller goes away, so producers (model streams) can stop.
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
  heartbeatMs?: number;
  /**
   * SSE as OpenAI's Responses API writes it: each event named by its object's `type`
   * (`event: response.created`), and no `data: [DONE]` at the end.
   */
  typedEvents?: boolean;
}

export const wantsNdjson = (req: Request) => (req.get('accept') ?? '').includes('application/x-ndjson');

/** Resolves when a write that returned false has drained, or when the connection closes first. */
export function drained(res: Response): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

export function openObjectStream(req: Request, res: Response, opts: StreamOptions = {}): ObjectStream {
  const format = wantsNdjson(req) ? 'ndjson' : 'sse';
  const controller = new AbortController();
  res.status(200).set({
    'Content-Type': format === 'sse' ? 'text/event-stream; charset=utf-8' : 'application/x-ndjson; charset=utf-8',
    'Cache-Control': 'no-cache, no-transform',
    'X-Accel-Buffering': 'no',
    Connection: 'keep-alive',
  });
  res.flushHeaders();
  streamOpened(req, res);
  // SSE comments keep idle proxies from closing the connection while a model thinks; a socket
  // still draining is not idle, so it gets none.
  const ping = () => void (res.writableNeedDrain || res.write(': ping\n\n'));
  const heartbeat = format === 'sse' ? setInterval(ping, opts.heartbeatMs ?? 15_000) : undefined;
  heartbeat?.unref();
  let ended = false;
  const gone = () => ended || res.writableEnded || res.destroyed;
  res.once('close', () => {
    if (heartbeat) clearInterval(heartbeat);
    if (!ended) controller.abort(new CallerLeft());
  });
  return {
    format,
    signal: controller.signal,
    send(value) {
      if (gone()) return Promise.resolve();
      // JSON.stringify escapes newlines, so one object is always one `data:` line.
      const json = JSON.stringify(value);
      const name = opts.typedEvents ? `event: ${(value as { type?: string }).type}\n` : '';
      return res.write(format === 'sse' ? `${name}data: ${json}\n\n` : `${json}\n`) ? Promise.resolve() : drained(res);
    },
    end() {
      if (ended) return;
      ended = true;
      if (heartbeat) clearInterval(heartbeat);
      if (!res.writableEnded && !res.destroyed) res.end(format === 'sse' && !opts.typedEvents ? 'data: [DONE]\n\n' : undefined);
    },
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

export type Producer = AsyncIterable<unknown> | ((signal: AbortSignal) => AsyncIterable<unknown>);

/**
 * Streams what a producer yields, one object per event, waiting for the socket between objects.
 * When the caller goes away the producer's signal aborts and its iterator is returned (its
 * `finally` runs). Nothing is sent before the first object, so a failure before it throws and the
 * router's error handler answers with a status (spec: upstream failures are 502/504 `{"detail"}`);
 * a failure midway writes `errorEvent(err)` and ends the stream normally (SSE: `data: [DONE]`).
 */
export async function streamObjects(req: Request, res: Response, produce: Producer, opts: PipeOptions = {}): Promise<void> {
  const leaving = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) leaving.abort(new CallerLeft());
  });
  const items = (typeof produce === 'function' ? produce(leaving.signal) : produce)[Symbol.asyncIterator]();
  const stop = async () => {
    await items.return?.();
  };
  let next: IteratorResult<unknown>;
  try {
    next = await items.next();
  } catch (err) {
    if (leaving.signal.aborted) return;
    throw err;
  }
  if (leaving.signal.aborted) return stop();
  const stream = openObjectStream(req, res, opts);
  try {
    for (; !next.done; next = await items.next()) {
      await stream.send(next.value);
      if (leaving.signal.aborted) return await stop();
    }
  } catch (err) {
    await stop().catch(() => undefined);
    if (leaving.signal.aborted) return;
    opts.onError?.(err);
    await stream.send((opts.errorEvent ?? defaultErrorEvent)(err));
  } finally {
    stream.end();
  }
}
