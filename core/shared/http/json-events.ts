import { readFailure } from './body';
import { unreadable } from './failures';
import { sseReader, type ChunkReader } from './sse';

/**
 * The JSON objects of a streamed answer, framed as server-sent events (one object per event's data;
 * `data: [DONE]` ends it, as the OpenAI wire and our own streams do) or as NDJSON (one object per
 * line, to the end of the body). What follows `[DONE]` is read and dropped, so the connection goes
 * back to the pool instead of being cut. Failures midway are the platform's errors (body.ts).
 */
export interface JsonEvent {
  /** The SSE event name; `message` when it has none, and for NDJSON. */
  event: string;
  data: unknown;
  id?: string;
}

export type Framing = 'sse' | 'ndjson';

export interface JsonEventsOptions {
  framing: Framing;
  /** Names the other side in error messages. */
  who: string;
  signal?: AbortSignal;
  /** SSE: a stream must end with `[DONE]` (our services' do): one ending before it was cut short. */
  doneRequired?: boolean;
  /** Told when `[DONE]` arrives. */
  onDone?: () => void;
}

/** The framing a Content-Type announces; undefined when it is not a stream. */
export function framingOf(contentType: string | string[] | undefined): Framing | undefined {
  const type = (Array.isArray(contentType) ? contentType[0] : contentType)?.split(';')[0]?.trim().toLowerCase();
  return type === 'text/event-stream' ? 'sse' : type === 'application/x-ndjson' ? 'ndjson' : undefined;
}

interface Raw {
  event?: string;
  data: string;
  id?: string;
}

const LF = '\n';

/** NDJSON lines (LF or CRLF); blank ones skipped. */
function ndjsonReader(onLine: (raw: Raw) => void): ChunkReader {
  const decoder = new TextDecoder();
  let rest = '';
  const lines = (text: string, final: boolean) => {
    let from = 0;
    for (let at = text.indexOf(LF); at >= 0; at = text.indexOf(LF, from)) {
      const line = text.slice(from, at);
      if (line.trim()) onLine({ data: line });
      from = at + 1;
    }
    rest = text.slice(from);
    if (final && rest.trim()) onLine({ data: rest });
  };
  return {
    push: (chunk) => lines(rest + decoder.decode(chunk, { stream: true }), false),
    end: () => lines(rest + decoder.decode(), true),
  };
}

function parsed(raw: Raw, who: string): JsonEvent {
  let data: unknown;
  try {
    data = JSON.parse(raw.data);
  } catch {
    throw unreadable(who, 'a streamed item that is not JSON');
  }
  return raw.id === undefined ? { event: raw.event ?? 'message', data } : { event: raw.event ?? 'message', data, id: raw.id };
}

export async function* jsonEvents(body: AsyncIterable<Uint8Array>, o: JsonEventsOptions): AsyncGenerator<JsonEvent> {
  const ready: Raw[] = [];
  let done = false;
  const reader =
    o.framing === 'ndjson'
      ? ndjsonReader((raw) => void ready.push(raw))
      : sseReader((e) => {
          if (done) return;
          if (e.data === '[DONE]') {
            done = true;
            o.onDone?.();
          }
          // An empty `data:` is valid SSE but carries no object.
          else if (e.data !== '') ready.push(e);
        }, o.who);
  try {
    for await (const chunk of body) {
      reader.push(chunk);
      // Parsed one by one as they are handed out: a bad item fails the stream after the good ones before it.
      for (let i = 0; i < ready.length; i++) yield parsed(ready[i], o.who);
      ready.length = 0;
    }
    reader.end();
  } catch (err) {
    throw readFailure(o.who, o.signal, err);
  }
  for (const raw of ready) yield parsed(raw, o.who);
  if (o.doneRequired && o.framing === 'sse' && !done) throw unreadable(o.who, 'the stream ended before [DONE]');
}
