/**
 * Subscription fan-out for `npm run bench:graphql`: N graphql-ws clients, each on its own socket,
 * subscribe to a streamed answer at once; when each first event and the end arrived, what failed,
 * and the server's resident memory (sampled every 50 ms) while they streamed.
 */
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { treeRssMiB } from '../shared/platform';

export const FANOUT_QUERY = `subscription($input: AskInput!) { answerStream(input: $input) {
  response finishReason sources { citation document { title } } model { id } } }`;

export interface FanOut {
  subscribers: number;
  /** Milliseconds from subscribing to the first event, and to the end, nearest-rank percentiles. */
  firstP50: number;
  firstP99: number;
  doneP50: number;
  doneP99: number;
  /** Subscriptions that ended in an error, or whose first event carried errors. */
  failed: number;
  firstError?: string;
  rssBeforeMiB: number;
  rssPeakMiB: number;
  wallMs: number;
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))] : Number.NaN;
};
const rss = (pid: number | undefined) => treeRssMiB(pid).reduce((sum, p) => sum + p.mib, 0);

export async function fanOut(
  graphqlUrl: string,
  params: Record<string, string>,
  n: number,
  serverPid: number | undefined,
  question: string,
): Promise<FanOut> {
  const url = graphqlUrl.replace(/^http/, 'ws');
  const clients = Array.from({ length: n }, () =>
    createClient({ url, webSocketImpl: WebSocket, connectionParams: params, retryAttempts: 0, lazy: true }),
  );
  const rssBeforeMiB = rss(serverPid);
  let rssPeakMiB = rssBeforeMiB;
  const sampler = setInterval(() => (rssPeakMiB = Math.max(rssPeakMiB, rss(serverPid))), 50);
  const firsts: number[] = [];
  const dones: number[] = [];
  let failed = 0;
  let firstError: string | undefined;
  const fail = (why: string) => {
    failed++;
    firstError ??= why;
  };
  const t0 = performance.now();
  await Promise.all(
    clients.map(
      (client) =>
        new Promise<void>((resolve) => {
          const start = performance.now();
          let first = true;
          client.subscribe(
            { query: FANOUT_QUERY, variables: { input: { query: question } } },
            {
              next: (r) => {
                if (first) {
                  first = false;
                  firsts.push(performance.now() - start);
                  if (r.errors) fail(JSON.stringify(r.errors[0]));
                }
              },
              error: (e) => {
                fail(
                  Array.isArray(e)
                    ? JSON.stringify(e[0])
                    : String((e as { reason?: string; message?: string })?.reason ?? (e as Error)?.message ?? e),
                );
                resolve();
              },
              complete: () => {
                dones.push(performance.now() - start);
                resolve();
              },
            },
          );
        }),
    ),
  );
  const wallMs = performance.now() - t0;
  clearInterval(sampler);
  await Promise.all(clients.map(async (c) => c.dispose()));
  return {
    subscribers: n,
    firstP50: pct(firsts, 0.5),
    firstP99: pct(firsts, 0.99),
    doneP50: pct(dones, 0.5),
    doneP99: pct(dones, 0.99),
    failed,
    firstError,
    rssBeforeMiB,
    rssPeakMiB,
    wallMs,
  };
}
