import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { unreadable } from './failures';

/**
 * Server-sent events (WHATWG HTML §9.2.6) over a body arriving in chunks, parsed by
 * `eventsource-parser`: lines end with CRLF, LF or CR, `data:` lines of one event are joined with
 * LF, comments (`:`) are skipped, an event is dispatched at its blank line, and one cut off by the
 * end of the body is dropped, as the standard says. `event` is undefined for the default
 * (`message`); `id` is the event's own, not the last one seen.
 */
export type SseEvent = EventSourceMessage;

/** An event (or a line) longer than this is refused: a stream that never ends its event would otherwise fill memory. */
export const MAX_EVENT_CHARS = 16 * 1024 * 1024;

/** Takes a body's bytes as they arrive; what it finds goes to the callback it was made with. */
export interface ChunkReader {
  push(chunk: Uint8Array): void;
  /** The body ended. */
  end(): void;
}

const CR = 13;

/** An SSE reader calling `onEvent` for each whole event, synchronously within `push`. */
export function sseReader(onEvent: (e: SseEvent) => void, who: string, maxChars = MAX_EVENT_CHARS): ChunkReader {
  let overflow = false;
  const parser = createParser({
    onEvent,
    onError: (err) => void (overflow ||= err.type === 'max-buffer-size-exceeded'),
    maxBufferSize: maxChars,
  });
  // In stream mode the decoder joins a character split across chunks and drops a leading BOM.
  const decoder = new TextDecoder();
  let endsWithCr = false;
  const feed = (text: string) => {
    if (!text) return;
    parser.feed(text);
    if (overflow) throw unreadable(who, `an event over ${maxChars} characters`);
    endsWithCr = text.charCodeAt(text.length - 1) === CR;
  };
  return {
    push: (chunk) => feed(decoder.decode(chunk, { stream: true })),
    end() {
      feed(decoder.decode());
      // The parser holds a final CR back to see whether an LF follows; at the end nothing does, so
      // it ends its line (an LF makes it one CRLF, never a second line end).
      if (endsWithCr) parser.feed('\n');
    },
  };
}

/** The events of a body, one by one. */
export async function* sseEvents(body: AsyncIterable<Uint8Array>, who = 'the server'): AsyncGenerator<SseEvent> {
  const ready: SseEvent[] = [];
  const reader = sseReader((e) => void ready.push(e), who);
  for await (const chunk of body) {
    reader.push(chunk);
    for (let i = 0; i < ready.length; i++) yield ready[i];
    ready.length = 0;
  }
  reader.end();
  yield* ready;
}
