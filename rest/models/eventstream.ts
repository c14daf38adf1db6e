import { drained } from '../shared/stream';
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import type { Response } from 'express';
import { streamOpened } from '../../edge/http/telemetry';

/**
 * A response in AWS event-stream framing (`application/vnd.amazon.eventstream`), as Bedrock's
 * streaming operations answer: binary messages with `:message-type` (event or exception),
 * `:event-type` / `:exception-type` and `:content-type` headers, JSON payloads. The frames (prelude,
 * CRCs) are the Smithy codec's, the one the AWS SDKs decode with.
 */
const codec = new EventStreamCodec(toUtf8, fromUtf8);

export interface EventStreamWriter {
  /** Writes one event; resolves when the socket can take more (or the caller has gone). */
  event(type: string, payload: unknown): Promise<void>;
  /** Writes a modeled exception (`modelStreamErrorException`, ...), after which the stream should end. */
  exception(type: string, payload: { message: string } & Record<string, unknown>): Promise<void>;
  end(): void;
  /** The caller has gone or the stream has ended: stop producing. */
  readonly closed: boolean;
}

type MessageHeaders = Parameters<EventStreamCodec['encode']>[0]['headers'];

const str = (value: string) => ({ type: 'string' as const, value });

export function openEventStream(res: Response, headers: Record<string, string> = {}): EventStreamWriter {
  // setHeader, not res.set: express would add a charset to the content type.
  res.status(200).setHeader('Content-Type', 'application/vnd.amazon.eventstream');
  res.set({ 'Cache-Control': 'no-cache', ...headers });
  res.flushHeaders();
  streamOpened(res.req, res);
  let ended = false;
  const gone = () => ended || res.writableEnded || res.destroyed;
  const write = (h: MessageHeaders, payload: unknown): Promise<void> => {
    if (gone()) return Promise.resolve();
    const frame = codec.encode({ headers: { ...h, ':content-type': str('application/json') }, body: fromUtf8(JSON.stringify(payload)) });
    return res.write(frame) ? Promise.resolve() : drained(res);
  };
  return {
    event: (type, payload) => write({ ':message-type': str('event'), ':event-type': str(type) }, payload),
    exception: (type, payload) => write({ ':message-type': str('exception'), ':exception-type': str(type) }, payload),
    end() {
      if (ended) return;
      ended = true;
      if (!res.writableEnded && !res.destroyed) res.end();
    },
    get closed() {
      return gone();
    },
  };
}

/**
 * Streams `events` as event-stream messages, waiting for the socket between them; stops when the
 * caller goes (ending the producer, which aborts the model call). A failure midway becomes the
 * exception message `onError` names, and the stream ends; failures before the first event are the
 * caller's to turn into a status (call this once the answer has started).
 */
export async function pipeEventStream(
  res: Response, events: AsyncIterable<{ event: string; payload: unknown }>,
  onError: (err: unknown) => { type: string; payload: { message: string } & Record<string, unknown> }, headers: Record<string, string> = {},
): Promise<void> {
  const out = openEventStream(res, headers);
  try {
    for await (const e of events) {
      await out.event(e.event, e.payload);
      if (out.closed) return;
    }
  } catch (err) {
    if (out.closed) return;
    const x = onError(err);
    await out.exception(x.type, x.payload);
  } finally {
    out.end();
  }
}
