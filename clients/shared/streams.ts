import { UpstreamFailed } from '../../core/shared/errors';

/** One server-sent event as it came over the wire (WHATWG HTML §9.2, "event stream interpretation"). */
export interface SseEvent {
  event: string;
  data: string;
  id?: string;
}

/** One parsed object of a streamed answer; `event` is the SSE event name, `message` when none (and for NDJSON). */
export interface StreamEvent {
  event: string;
  data: unknown;
  id?: string;
}

const EOL = /\r\n|\r|\n/;

/** Text lines of a byte stream, split on CRLF, CR or LF (SSE allows all three). */
export async function* lines(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let rest = '';
  for await (const chunk of chunks) {
    rest += decoder.decode(chunk, { stream: true });
    // A trailing CR may be the first half of a CRLF split across chunks: decide when the next one comes.
    const held = rest.endsWith('\r');
    const parts = (held ? rest.slice(0, -1) : rest).split(EOL);
    rest = parts.pop()! + (held ? '\r' : '');
    yield* parts;
  }
  rest += decoder.decode();
  const parts = rest.split(EOL);
  if (parts[parts.length - 1] === '') parts.pop();
  yield* parts;
}

/** SSE events from lines: `data:` lines joined with \n, `:` comments (heartbeats) skipped. */
export async function* sseEvents(input: AsyncIterable<string>): AsyncGenerator<SseEvent> {
  let data: string[] = [];
  let event = '';
  let id: string | undefined;
  for await (const line of input) {
    if (line === '') {
      if (data.length > 0) yield { event: event || 'message', data: data.join('\n'), ...(id !== undefined && { id }) };
      data = [];
      event = '';
      continue;
    }
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const raw = colon < 0 ? '' : line.slice(colon + 1);
    const value = raw.startsWith(' ') ? raw.slice(1) : raw;
    if (field === 'data') data.push(value);
    else if (field === 'event') event = value;
    else if (field === 'id' && !value.includes('\0')) id = value;
    // `retry` only matters to a client that reconnects; a one-shot answer does not.
  }
  // An event without its closing blank line is incomplete and dropped, as the SSE spec says.
}

const mediaType = (res: Response) => (res.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();

function parse(text: string, where: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new UpstreamFailed(`${where} streamed an item that is not JSON`, { cause: err });
  }
}

/**
 * The objects of a streamed answer, framed as its content type says: `text/event-stream` (ends at
 * `data: [DONE]`; ending without it means the stream was cut, so it throws UpstreamFailed) or
 * `application/x-ndjson` (ends with the body). Returning early cancels the body, which closes the
 * connection so the server sees the caller leave.
 */
export async function* readEvents(res: Response, where: string): AsyncGenerator<StreamEvent> {
  const type = mediaType(res);
  const body = res.body;
  if (!body || (type !== 'text/event-stream' && type !== 'application/x-ndjson')) {
    await body?.cancel();
    throw new UpstreamFailed(`${where} answered ${type || 'without a content type'}, not a stream`);
  }
  if (type === 'application/x-ndjson') {
    for await (const line of lines(body)) {
      if (line.trim() !== '') yield { event: 'message', data: parse(line, where) };
    }
    return;
  }
  for await (const e of sseEvents(lines(body))) {
    if (e.data === '[DONE]') return;
    // An empty `data:` is valid SSE but carries no object; skip it rather than fail the stream.
    if (e.data === '') continue;
    yield { event: e.event, data: parse(e.data, where), ...(e.id !== undefined && { id: e.id }) };
  }
  throw new UpstreamFailed(`${where} ended its stream before [DONE] (truncated)`);
}
