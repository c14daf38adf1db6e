import type { Response } from 'express';
import { CallerLeft } from '../../core/shared/cancel';
import { streamOpened } from './telemetry';
import { toPlatformError } from './errors';
import { noteFailure } from './failures';

/**
 * The one writer of streamed answers, whatever their framing (SSE with or without named events,
 * NDJSON, a JSON array, multipart/mixed parts, AWS event-stream frames; framings in
 * stream-frames.ts): the head (each wire's content type and caching, counted among the open
 * streams), writes that wait for a slow client to drain, heartbeats while the stream is idle,
 * noticing the caller leaving (the producer is aborted with CallerLeft and its iterator returned),
 * and, in pipeStream, a failure midway ended with the wire's own error frame.
 */
export type Chunk = string | Uint8Array;

export interface StreamOptions {
  /** The head's headers: content type and caching, as the wire's clients expect them. */
  headers: Record<string, string>;
  /** Written at once after the head (graphql-sse: a comment, as some browsers show nothing before a first chunk). */
  opening?: Chunk;
  /** A frame written every `everyMs` (STREAM_HEARTBEAT_MS) so idle proxies keep the connection; none when absent. */
  heartbeat?: { frame: Chunk; everyMs: number };
}

export interface EventStream {
  /** Aborts (with CallerLeft) when the caller goes away before end(). */
  readonly signal: AbortSignal;
  /** The caller has gone or the stream has ended: nothing more is written. */
  readonly gone: boolean;
  /**
   * Writes one chunk. The promise resolves at once while the socket keeps up, else when it has
   * drained (or the caller has gone); await it so a fast producer cannot pile up memory. Never rejects.
   */
  write(chunk: Chunk): Promise<void>;
  /** Stops the heartbeat and ends the response, with `last` when given, unless the caller has gone. */
  end(last?: Chunk): void;
}

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

/** Starts a streamed answer on `res`: 200 with its head (flushed), counted among the open streams until it closes. */
export function openStream(res: Response, opts: StreamOptions): EventStream {
  const controller = new AbortController();
  res.status(200);
  // setHeader, not express's res.set, which would add a charset to a content type without one.
  for (const [name, value] of Object.entries(opts.headers)) res.setHeader(name, value);
  res.flushHeaders();
  streamOpened(res.req, res);
  let ended = false;
  const gone = () => ended || res.writableEnded || res.destroyed;
  const write = (chunk: Chunk) => (gone() || res.write(chunk) ? Promise.resolve() : drained(res));
  // A socket still draining is not idle, so it gets no heartbeat.
  const beat = opts.heartbeat;
  const heartbeat = beat && !res.closed ? setInterval(() => void (res.writableNeedDrain || write(beat.frame)), beat.everyMs) : undefined;
  heartbeat?.unref();
  const closed = () => {
    if (heartbeat) clearInterval(heartbeat);
    if (!ended) controller.abort(new CallerLeft());
  };
  // A response that closed already (the client left while the answer was starting) has no close to come.
  if (res.closed) closed();
  else res.once('close', closed);
  if (opts.opening !== undefined) void write(opts.opening);
  return {
    signal: controller.signal,
    get gone() {
      return gone();
    },
    write,
    end(last) {
      if (ended) return;
      ended = true;
      if (heartbeat) clearInterval(heartbeat);
      if (!res.writableEnded && !res.destroyed) res.end(last);
    },
  };
}

/** What a stream is made of: items, or a function of the signal that aborts when the caller leaves. */
export type Producer<T> = AsyncIterable<T> | ((signal: AbortSignal) => AsyncIterable<T>);

export interface PipeOptions<T> extends StreamOptions {
  /** One item's frame(s). */
  frame(item: T): Chunk;
  /** The last frame written when the producer fails midway (the wire's error event); given the failure, which it may also log. */
  failure(err: unknown): Chunk;
  /** Written as the response ends normally or after a failure (`data: [DONE]`, a JSON array's `]`). */
  last?(): Chunk | undefined;
  /**
   * `first` (default): nothing is sent before the first item, so a failure before it throws and the
   * router answers with a status; `once`: the head at once (the answer has started), every failure a frame.
   */
  head?: 'first' | 'once';
}

/**
 * Streams what a producer yields, one frame per item, waiting for the socket between items. When
 * the caller goes away the producer's signal aborts and its iterator is returned (its `finally`
 * runs); nothing is reported then. A failure midway writes `failure(err)` and ends the stream as usual.
 */
export async function pipeStream<T>(res: Response, produce: Producer<T>, opts: PipeOptions<T>): Promise<void> {
  const leaving = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) leaving.abort(new CallerLeft());
  });
  const items = (typeof produce === 'function' ? produce(leaving.signal) : produce)[Symbol.asyncIterator]();
  const stop = async () => {
    await items.return?.();
  };
  let stream: EventStream | undefined = opts.head === 'once' ? openStream(res, opts) : undefined;
  let next: IteratorResult<T> | undefined;
  if (!stream) {
    try {
      next = await items.next();
    } catch (err) {
      if (leaving.signal.aborted) return;
      throw err;
    }
    if (leaving.signal.aborted) return stop();
    stream = openStream(res, opts);
  }
  const out = stream;
  try {
    for (next ??= await items.next(); !next.done; next = await items.next()) {
      await out.write(opts.frame(next.value));
      if (leaving.signal.aborted || out.gone) return await stop();
    }
  } catch (err) {
    await stop().catch(() => undefined);
    if (leaving.signal.aborted || out.gone) return;
    noteFailure(res, toPlatformError(err), true);
    await out.write(opts.failure(err));
  } finally {
    out.end(opts.last?.());
  }
}
