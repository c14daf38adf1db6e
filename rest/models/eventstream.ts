import { EventStreamCodec } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import type { Response } from 'express';
import { pipeStream } from '../../edge/http/event-stream';

/**
 * A response in AWS event-stream framing (`application/vnd.amazon.eventstream`), as Bedrock's
 * streaming operations answer: binary messages with `:message-type` (event or exception),
 * `:event-type` / `:exception-type` and `:content-type` headers, JSON payloads. The frames (prelude,
 * CRCs) are the Smithy codec's, the one the AWS SDKs decode with; the edge's writer sends them.
 * No heartbeat: the framing has no message a client skips.
 */
const codec = new EventStreamCodec(toUtf8, fromUtf8);

type MessageHeaders = Parameters<EventStreamCodec['encode']>[0]['headers'];

const str = (value: string) => ({ type: 'string' as const, value });

const frame = (h: MessageHeaders, payload: unknown) =>
  codec.encode({ headers: { ...h, ':content-type': str('application/json') }, body: fromUtf8(JSON.stringify(payload)) });

/**
 * Streams `events` as event-stream messages, waiting for the socket between them; stops when the
 * caller goes (ending the producer, which aborts the model call). A failure midway becomes the
 * exception message `onError` names (`modelStreamErrorException`, ...), and the stream ends; failures
 * before the first event are the caller's to turn into a status (call this once the answer has started).
 */
export function pipeEventStream(
  res: Response,
  events: AsyncIterable<{ event: string; payload: unknown }>,
  onError: (err: unknown) => { type: string; payload: { message: string } & Record<string, unknown> },
  headers: Record<string, string> = {},
): Promise<void> {
  return pipeStream(res, events, {
    headers: { 'Content-Type': 'application/vnd.amazon.eventstream', 'Cache-Control': 'no-cache', ...headers },
    head: 'once',
    frame: (e) => frame({ ':message-type': str('event'), ':event-type': str(e.event) }, e.payload),
    failure(err) {
      const x = onError(err);
      return frame({ ':message-type': str('exception'), ':exception-type': str(x.type) }, x.payload);
    },
  });
}
