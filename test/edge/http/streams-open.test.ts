import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Response } from 'express';
import { prometheusMetrics } from '../../../core/shared/telemetry/prometheus';
import { routeMatched, serverTelemetry } from '../../../edge/http/telemetry';
import { anthropicSse } from '../../../rest/models/anthropic';
import { pipeEventStream } from '../../../rest/models/eventstream';
import { geminiStream } from '../../../rest/models/gemini-stream';
import { streamObjects } from '../../../rest/shared/stream';

/**
 * platform_http_streams_open{route}: every REST stream writer (server-sent events and NDJSON of
 * rest/shared/stream.ts, AWS event-stream framing, Gemini's SSE and JSON array, Anthropic's SSE)
 * counts its answer as open from its head to the response's close: up while it streams, back to 0
 * when it ends and when the client leaves midway. Black-box over HTTP, against the writers on an
 * express app with the platform's request telemetry.
 */
const metrics = prometheusMetrics({ maxTenants: 10 });
const OPEN = 'platform_http_streams_open';

/** One item, then (unless `complete`) nothing more until the client has gone. */
async function* held<T>(res: Response, item: T, complete: boolean): AsyncGenerator<T> {
  yield item;
  if (!complete && !res.closed) await once(res, 'close');
}

let server: Server;
let base: string;
beforeAll(async () => {
  const app = express();
  app.use(serverTelemetry({ metrics, tracing: false }));
  const route = (path: string, write: (res: Response, complete: boolean) => Promise<void>) =>
    app.get(path, (req, res, next) => {
      routeMatched(res, path);
      write(res, req.query.complete === '1').catch(next);
    });
  route('/objects', (res, complete) => streamObjects(res.req, res, held(res, { n: 1 }, complete)));
  route('/eventstream', (res, complete) =>
    pipeEventStream(res, held(res, { event: 'chunk', payload: { n: 1 } }, complete), () => ({ type: 'x', payload: { message: 'm' } })),
  );
  route('/gemini', (res, complete) => geminiStream(res, 'sse', held(res, { n: 1 }, complete)));
  route('/anthropic', (res, complete) => anthropicSse(res, held(res, { type: 'ping' } as never, complete)));
  server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const open = async (route: string) => {
  const { values } = await metrics.registry.getSingleMetric(OPEN)!.get();
  return values.find((v) => v.labels.route === route)?.value ?? 0;
};
const until = async (route: string, want: number) => {
  while ((await open(route)) !== want) await new Promise((resolve) => setTimeout(resolve, 10));
};

describe.each(['/objects', '/eventstream', '/gemini', '/anthropic'])('%s', (route) => {
  it('is not counted once it has ended', async () => {
    const res = await fetch(`${base}${route}?complete=1`);
    expect(res.status).toBe(200);
    expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(0);
    await until(route, 0);
  });

  it('comes back to 0 when the client leaves midway', async () => {
    const leave = new AbortController();
    const res = await fetch(`${base}${route}`, { signal: leave.signal });
    const reader = res.body!.getReader();
    expect((await reader.read()).done).toBe(false);
    expect(await open(route)).toBe(1);
    leave.abort();
    await until(route, 0);
  });
});
