import { sseReader, type SseEvent } from '../../core/shared/http/sse';

/**
 * The events of a whole server-sent-events body, read by the platform's one SSE reader
 * (`core/shared/http/sse.ts`, on eventsource-parser), as a client would read them: an event not
 * closed by its blank line is dropped, comments are skipped.
 */
export function sseEventsOf(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  const reader = sseReader((e) => void events.push(e), 'the server under test');
  reader.push(Buffer.from(text));
  reader.end();
  return events;
}

/** The `data` of each event, in order (`[DONE]` included). */
export const sseData = (text: string): string[] => sseEventsOf(text).map((e) => e.data);
