import { createClient, type Client, type FormattedExecutionResult } from 'graphql-ws';
import WebSocket from 'ws';

/** Reading the gateway's subscription transports in tests: graphql-ws, GraphQL over SSE, multipart. */
export type Result = FormattedExecutionResult<any, unknown>;

/** Every result of one operation over a socket, and the error message that ended it, if any. */
export function run(client: Client, query: string, variables: Record<string, unknown>, onResult?: (r: Result, stop: () => void) => void) {
  return new Promise<{ results: Result[]; error?: any }>((resolve) => {
    const results: Result[] = [];
    const stop = client.subscribe({ query, variables }, {
      next: (r) => {
        results.push(r);
        onResult?.(r, () => {
          stop();
          resolve({ results });
        });
      },
      error: (error) => resolve({ results, error }),
      complete: () => resolve({ results }),
    });
  });
}

export const wsUrl = (base: string) => `${base.replace(/^http/, 'ws')}/graphql`;

/**
 * A graphql-ws client of base's /graphql. keepOpen: connect now and hold the socket until disposed
 * (so that completing a subscription is all the server sees); otherwise connect on the first
 * subscription and close when the last ends.
 */
export function socketClient(base: string, connectionParams: Record<string, string | undefined>, keepOpen = false): Client {
  return createClient({ url: wsUrl(base), webSocketImpl: WebSocket, connectionParams, retryAttempts: 0, lazy: !keepOpen });
}

/** A POST of one operation with the headers given (undefined ones left out). */
export function postOperation(base: string, body: unknown, headers: Record<string, string | undefined>, signal?: AbortSignal) {
  const sent = Object.fromEntries(Object.entries({ 'content-type': 'application/json', ...headers }).filter((e): e is [string, string] => e[1] !== undefined));
  return fetch(`${base}/graphql`, { method: 'POST', headers: sent, body: JSON.stringify(body), signal });
}

/** GraphQL over SSE (distinct connections mode): the `next` events' results, and whether `complete` came. */
export function sseResults(text: string): { results: Result[]; complete: boolean; comments: number } {
  const events = text.split('\n\n').filter(Boolean);
  const results: Result[] = [];
  let complete = false;
  let comments = 0;
  for (const e of events) {
    if (e.startsWith(':')) comments++;
    const name = /^event: (.+)$/m.exec(e)?.[1];
    const data = /^data: (.*)$/m.exec(e)?.[1];
    if (name === 'next' && data) results.push(JSON.parse(data));
    if (name === 'complete') complete = true;
  }
  return { results, complete, comments };
}

/** Apollo's multipart subscription body: each part's JSON (heartbeats `{}` included), and whether the closing boundary came. */
export function multipartParts(text: string, boundary = 'graphql'): { parts: any[]; closed: boolean } {
  const closed = text.endsWith(`\r\n--${boundary}--\r\n`);
  const body = closed ? text.slice(0, -`\r\n--${boundary}--\r\n`.length) : text;
  const parts = body.split(`\r\n--${boundary}\r\n`).filter(Boolean).map((p) => {
    const at = p.indexOf('\r\n\r\n');
    return JSON.parse(p.slice(at + 4));
  });
  return { parts, closed };
}
