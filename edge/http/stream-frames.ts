/**
 * The framings event-stream.ts writes, each as its clients read it: server-sent events (with or
 * without `event:` names, LF or CRLF line ends), comments as heartbeats, NDJSON lines, the elements
 * of one JSON array, multipart/mixed parts. The heads are the ones each wire has always answered with.
 */

/** Server-sent events: the platform's own streams (REST objects, GraphQL over SSE). */
export const SSE_HEAD: Record<string, string> = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-cache, no-transform',
  'X-Accel-Buffering': 'no',
  Connection: 'keep-alive',
};
/** Server-sent events as a vendor's API answers them (Gemini's `?alt=sse`, Anthropic's Messages). */
export const VENDOR_SSE_HEAD: Record<string, string> = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-cache',
  'X-Accel-Buffering': 'no',
};
/** One object per line (`Accept: application/x-ndjson`). */
export const NDJSON_HEAD: Record<string, string> = { ...SSE_HEAD, 'Content-Type': 'application/x-ndjson; charset=utf-8' };
/** One JSON array whose elements arrive as they are made (Gemini without `?alt=sse`). */
export const JSON_ARRAY_HEAD: Record<string, string> = { 'Content-Type': 'application/json; charset=utf-8', 'X-Accel-Buffering': 'no' };

/**
 * One event: its `event:` name when given, then its data on one `data:` line (JSON.stringify
 * escapes newlines, so one object is always one line); `data:` alone for no data. `eol` is `\r\n`
 * for Gemini, whose SDKs split events on either.
 */
export const sseEvent = (data: string | undefined, event?: string, eol = '\n') =>
  `${event === undefined ? '' : `event: ${event}${eol}`}data:${data === undefined ? '' : ` ${data}`}${eol}${eol}`;

/** A comment (`: ping`, or `:` alone): every SSE client skips it, so it is the heartbeat. */
export const sseComment = (text = '') => `:${text ? ` ${text}` : ''}\n\n`;

/** One NDJSON line. */
export const ndjsonLine = (json: string) => `${json}\n`;

/** The elements of one JSON array written as they come: `[` before the first, `,\r\n` between, `]` (or `[]`) at the end. */
export function jsonArray() {
  let written = 0;
  return {
    element: (json: string) => `${written++ ? ',\r\n' : '['}${json}`,
    close: () => (written ? ']' : '[]'),
  };
}

/** multipart/mixed (Apollo's subscription protocol): a head naming the boundary, one JSON part per event, the closing boundary. */
export function multipartFraming(boundary: string, params = '') {
  return {
    head: { 'Content-Type': `multipart/mixed;boundary="${boundary}"${params}`, 'Cache-Control': 'no-cache, no-store' } as Record<
      string,
      string
    >,
    part: (json: string) => `\r\n--${boundary}\r\ncontent-type: application/json; charset=utf-8\r\n\r\n${json}`,
    end: `\r\n--${boundary}--\r\n`,
  };
}
