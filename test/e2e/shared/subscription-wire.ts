import { createClient, type Client, type FormattedExecutionResult } from 'graphql-ws';
import WebSocket from 'ws';
import { joined, type Chunk } from '../chat/wire';
import { sseEventsOf } from '../../shared/sse';

/** Reading the gateway's subscription transports in tests: graphql-ws, GraphQL over SSE, multipart. */
export type Result = FormattedExecutionResult<any, unknown>;

/** Every result of one operation over a socket, and the error message that ended it, if any. */
export function run(client: Client, query: string, variables: Record<string, unknown>, onResult?: (r: Result, stop: () => void) => void) {
  return new Promise<{ results: Result[]; error?: any }>((resolve) => {
    const results: Result[] = [];
    const stop = client.subscribe(
      { query, variables },
      {
        next: (r) => {
          results.push(r);
          onResult?.(r, () => {
            stop();
            resolve({ results });
          });
        },
        error: (error) => resolve({ results, error }),
        complete: () => resolve({ results }),
      },
    );
  });
}

export const wsUrl = (base: string) => `${base.replace(/^http/, 'ws')}/graphql`;

/**
 * A graphql-ws client of base's /graphql. keepOpen: connect now and hold the socket until disposed
 * (so that completing a subscription is all the server sees); otherwise connect on the first
 * subscription and close when the last ends.
 */
export function socketClient(base: string, connectionParams: Record<string, string | undefined>, keepOpen = false): Client {
  // A held socket's end (the test terminating it) is expected, not worth a console error.
  return createClient({
    url: wsUrl(base),
    webSocketImpl: WebSocket,
    connectionParams,
    retryAttempts: 0,
    lazy: !keepOpen,
    onNonLazyError: () => undefined,
  });
}

/** A POST of one operation with the headers given (undefined ones left out). */
export function postOperation(base: string, body: unknown, headers: Record<string, string | undefined>, signal?: AbortSignal) {
  const sent = Object.fromEntries(
    Object.entries({ 'content-type': 'application/json', ...headers }).filter((e): e is [string, string] => e[1] !== undefined),
  );
  return fetch(`${base}/graphql`, { method: 'POST', headers: sent, body: JSON.stringify(body), signal });
}

/** GraphQL over SSE (distinct connections mode): the `next` events' results, and whether `complete` came. */
export function sseResults(text: string): { results: Result[]; complete: boolean; comments: number } {
  const results: Result[] = [];
  let complete = false;
  for (const e of sseEventsOf(text)) {
    if (e.event === 'next' && e.data) results.push(JSON.parse(e.data));
    if (e.event === 'complete') complete = true;
  }
  // Comments (keep-alives) are lines starting with a colon; the reader skips them.
  return { results, complete, comments: text.match(/^:/gm)?.length ?? 0 };
}

/** Apollo's multipart subscription body: each part's JSON (heartbeats `{}` included), and whether the closing boundary came. */
export function multipartParts(text: string, boundary = 'graphql'): { parts: any[]; closed: boolean } {
  const closed = text.endsWith(`\r\n--${boundary}--\r\n`);
  const body = closed ? text.slice(0, -`\r\n--${boundary}--\r\n`.length) : text;
  const parts = body
    .split(`\r\n--${boundary}\r\n`)
    .filter(Boolean)
    .map((p) => {
      const at = p.indexOf('\r\n\r\n');
      return JSON.parse(p.slice(at + 4));
    });
  return { parts, closed };
}

/** A streamed answer with fields of all three subgraphs behind it: chat's chunks, search's titles, models' model. */
export const ANSWER_STREAM = `subscription($input: AskInput!) { answerStream(input: $input) {
  response generatedSearchText finishReason sources { citation title document { id title } } model { id contextLength } } }`;

/**
 * An answerStream's results are the REST stream's chunks (`rest`), the first carrying its sources
 * titled from search and its model from models (the query STREAM of the gateway's tests).
 */
export function expectStreamedAnswer(results: Result[], rest: Chunk[]) {
  expect(results.every((r) => r.errors === undefined)).toBe(true);
  const chunks = results.map((r) => r.data.answerStream);
  expect(chunks.map((c) => c.response)).toEqual(rest.map((c) => c.response));
  expect(chunks.map((c) => c.response).join('')).toBe(joined(rest));
  expect(chunks.at(-1).finishReason).toBe('STOP');
  expect(chunks.slice(0, -1).every((c) => c.finishReason === null)).toBe(true);
  expect(chunks[0].model).toEqual({ id: 'local-chat', contextLength: 8192 });
  expect(chunks[0].sources.length).toBeGreaterThan(0);
  expect(chunks[0].sources[0]).toMatchObject({ citation: 1, title: 'Aspirin', document: { id: expect.any(String), title: 'Aspirin' } });
  for (const s of chunks[0].sources) expect(s.document.title).toBe(s.title);
  expect(chunks.slice(1).every((c) => c.sources === null && c.model === null)).toBe(true);
}
