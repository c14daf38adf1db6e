/**
 * An incremental server-sent events parser (WHATWG HTML §9.2.6) over a body arriving in chunks:
 * lines end with CRLF, LF or CR (a CR at a chunk's end waits to see whether an LF follows), UTF-8
 * characters may be split across chunks, `data:` lines of one event are joined with LF, comments
 * (`:`) are skipped, and an event is dispatched at its blank line. An event cut off by the end of
 * the body is dropped, as the standard says.
 */
export interface SseEvent {
  /** `message` unless the event named itself. */
  event: string;
  data: string;
  id?: string;
}

export async function* sseEvents(body: AsyncIterable<Buffer | Uint8Array>): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder('utf-8');
  let buffer = '';
  let first = true;
  let data: string[] = [];
  let event = '';
  let id: string | undefined;

  const line = (text: string): SseEvent | undefined => {
    if (text === '') {
      const ready = data.length ? { event: event || 'message', data: data.join('\n'), ...(id !== undefined ? { id } : {}) } : undefined;
      data = [];
      event = '';
      return ready;
    }
    if (text.startsWith(':')) return undefined;
    const colon = text.indexOf(':');
    const field = colon < 0 ? text : text.slice(0, colon);
    let value = colon < 0 ? '' : text.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data.push(value);
    else if (field === 'event') event = value;
    else if (field === 'id' && !value.includes('\0')) id = value;
    return undefined;
  };

  function* lines(final: boolean): Generator<SseEvent> {
    for (;;) {
      const i = buffer.search(/[\r\n]/);
      if (i < 0) break;
      // A CR ending the buffer may be the first half of a CRLF split across chunks.
      if (buffer[i] === '\r' && i === buffer.length - 1 && !final) break;
      const text = buffer.slice(0, i);
      buffer = buffer.slice(i + (buffer[i] === '\r' && buffer[i + 1] === '\n' ? 2 : 1));
      const ev = line(text);
      if (ev) yield ev;
    }
  }

  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    if (first && buffer.length) {
      if (buffer.charCodeAt(0) === 0xfeff) buffer = buffer.slice(1);
      first = false;
    }
    yield* lines(false);
  }
  buffer += decoder.decode();
  yield* lines(true);
}
