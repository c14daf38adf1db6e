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

/** Reads a streamed body until `text` has come, then lets go of it (the caller may read on, or cancel it). */
export async function readUntil(body: ReadableStream<Uint8Array>, text: string): Promise<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let got = '';
  while (!got.includes(text)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the stream ended before ${text}: ${got}`);
    got += decoder.decode(value, { stream: true });
  }
  reader.releaseLock();
  return got;
}
