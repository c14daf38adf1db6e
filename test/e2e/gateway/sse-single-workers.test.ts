import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPlatformProcess, stopProcess, type PlatformProcess } from '../shared/processes';
import { freePort } from '../shared/server';
import { lanesToWorkers, send, type Answer, type Lane } from '../../shared/served-by';

/**
 * graphql-sse's single connection mode on the default start with several workers (`platform start`,
 * WORKERS=3): its requests are separate HTTP requests, each on whichever worker its connection
 * lands. Each request here goes through a connection known (from /proc) to reach a given worker:
 * the reservation on one, the stream on a second, the operations on a third, and they meet; so do
 * operations sent before the stream opens, the bounds (streams per caller, operations per stream,
 * an operation id taken once) and the ownership of a stream, across workers. When the worker
 * holding a stream dies, the stream is gone for every worker. Before the streams were shared, any
 * request reaching a worker other than the reservation's answered 404.
 */
const TOKEN = 'x-graphql-event-stream-token';
let p: PlatformProcess;
let dataDir: string;
let url: string;
let user: Record<string, string>;
let client: Record<string, string>;
let lanes: Lane[];

const token = async (form: Record<string, string>, path: string) => {
  const res = await fetch(`${p.url}/auth/api/v1/oauth/connect/${path}`, { method: 'POST', body: new URLSearchParams(form) });
  return `Bearer ${((await res.json()) as { access_token: string }).access_token}`;
};

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'platform-sse-workers-'));
  p = await startPlatformProcess(['start'], {
    PORT: String(await freePort()),
    PLATFORM_DATA_DIR: dataDir,
    WORKERS: '3',
    LOG_LEVEL: 'warn',
  });
  url = `${p.url}/graphql`;
  const boot = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')) as Record<string, string>;
  user = {
    authorization: await token({ realm: boot.realm, username: boot.username, password: boot.password }, 'user/login'),
    'api-key': boot.api_key,
  };
  client = { authorization: await token({ realm: boot.realm, client_id: boot.client_id, client_secret: boot.client_secret }, 'token') };
  lanes = await lanesToWorkers(`${p.url}/healthz`, p.child.pid!, 3);
}, 120_000);
afterAll(async () => {
  lanes?.forEach((l) => l.agent.destroy());
  if (p) await stopProcess(p.child);
  rmSync(dataDir, { recursive: true, force: true });
});

/** The events of an open stream as they come. */
function events(stream: Answer) {
  let text = '';
  stream.res.setEncoding('utf8').on('data', (d: string) => (text += d));
  const ended = new Promise<void>((resolve) => stream.res.once('close', () => resolve()));
  return {
    get text() {
      return text;
    },
    ended,
    /** Resolves once the stream holds `needle` (polling what has arrived; the test's timeout bounds it). */
    async waitFor(needle: string) {
      while (!text.includes(needle)) await new Promise((resolve) => setTimeout(resolve, 20));
    },
  };
}

const reserve = async (lane: Lane, who = user) => {
  const r = await send(url, lane.agent, 'PUT', { authorization: who.authorization });
  return { status: r.status, token: await r.text() };
};
const openStream = (lane: Lane, streamToken: string, who = user) =>
  send(url, lane.agent, 'GET', { authorization: who.authorization, [TOKEN]: streamToken, accept: 'text/event-stream' });
const operate = async (lane: Lane, streamToken: string, operationId: string, query: string, who = user) => {
  const r = await send(
    url,
    lane.agent,
    'POST',
    { ...who, [TOKEN]: streamToken, 'content-type': 'application/json' },
    JSON.stringify({ query, extensions: { operationId } }),
  );
  const body = await r.text();
  return {
    status: r.status,
    code: body ? (JSON.parse(body) as { errors?: { extensions?: { code?: string } }[] }).errors?.[0]?.extensions?.code : undefined,
  };
};
const ANSWER = 'subscription { answerStream(input: { query: "Why do glaciers retreat?" }) { response finishReason } }';

it('a reservation on one worker, its stream on a second and its operations on a third meet: a query, then a streamed answer', async () => {
  const [a, b, c] = lanes as [Lane, Lane, Lane];
  expect(new Set([a.worker, b.worker, c.worker]).size).toBe(3);
  const made = await reserve(a);
  expect(made.status).toBe(201);
  const stream = await openStream(b, made.token);
  expect(stream.status).toBe(200);
  const seen = events(stream);
  expect(await operate(c, made.token, 'q1', '{ __typename }')).toEqual({ status: 202, code: undefined });
  await seen.waitFor('event: complete\ndata: {"id":"q1"}');
  expect(seen.text).toContain('event: next\ndata: {"id":"q1","payload":{"data":{"__typename":"Query"}}}');
  expect(await operate(c, made.token, 's1', ANSWER)).toEqual({ status: 202, code: undefined });
  await seen.waitFor('event: complete\ndata: {"id":"s1"}');
  expect(seen.text).toMatch(/"id":"s1","payload":\{"data":\{"answerStream":\{"response":"[^"]+","finishReason":null/);
  expect(seen.text).toContain('"id":"s1","payload":{"data":{"answerStream":{"response":"","finishReason":"STOP"}}}');
  // Cancelling from yet another worker reaches the holder (200), and an unknown id is no error.
  expect(
    await send(url, a.agent, 'DELETE', { authorization: user.authorization, [TOKEN]: made.token }).then((r) =>
      r.text().then(() => r.status),
    ),
  ).toBe(400);
  const cancelled = await send(`${url}?operationId=nothing-running`, a.agent, 'DELETE', {
    authorization: user.authorization,
    [TOKEN]: made.token,
  });
  await cancelled.text();
  expect(cancelled.status).toBe(200);
  stream.res.destroy();
  await seen.ended;
}, 60_000);

it('operations sent before the stream opens wait for it on any worker, each id taken once and at most 20 of them', async () => {
  const [a, b, c] = lanes as [Lane, Lane, Lane];
  const made = await reserve(c);
  expect(await operate(a, made.token, 'early', '{ __typename }')).toEqual({ status: 202, code: undefined });
  expect(await operate(b, made.token, 'early', '{ __typename }')).toEqual({ status: 409, code: 'OPERATION_ID_TAKEN' });
  for (let i = 1; i < 20; i++) expect((await operate([a, b, c][i % 3], made.token, `op${i}`, '{ __typename }')).status).toBe(202);
  expect(await operate(c, made.token, 'op20', '{ __typename }')).toEqual({ status: 400, code: 'TOO_MANY_OPERATIONS' });
  const stream = await openStream(b, made.token);
  const seen = events(stream);
  await seen.waitFor('event: complete\ndata: {"id":"early"}');
  for (let i = 1; i < 20; i++) await seen.waitFor(`event: complete\ndata: {"id":"op${i}"}`);
  stream.res.destroy();
  await seen.ended;
}, 60_000);

it('a stream belongs to the caller who reserved it, is opened once, and a caller holds at most 10, counted across workers', async () => {
  const [a, b, c] = lanes as [Lane, Lane, Lane];
  const made = await reserve(a);
  const stolen = await openStream(b, made.token, client);
  await stolen.text();
  expect(stolen.status).toBe(404);
  expect(await operate(c, made.token, 'x', '{ __typename }', client)).toEqual({ status: 404, code: 'STREAM_NOT_FOUND' });
  const stream = await openStream(c, made.token);
  expect(stream.status).toBe(200);
  const again = await openStream(a, made.token);
  await again.text();
  expect(again.status).toBe(409);
  stream.res.destroy();

  const tokens: string[] = [];
  for (let i = 0; ; i++) {
    const r = await reserve([a, b, c][i % 3], client);
    if (r.status !== 201) {
      expect(r.status).toBe(429);
      break;
    }
    tokens.push(r.token);
  }
  expect(tokens).toHaveLength(10);
}, 60_000);

it('when the worker holding a stream dies, the stream is gone on every worker', async () => {
  const [a, b, c] = lanes as [Lane, Lane, Lane];
  const made = await reserve(a);
  const stream = await openStream(b, made.token);
  const seen = events(stream);
  process.kill(b.worker, 'SIGKILL');
  await seen.ended;
  expect(await operate(c, made.token, 'late', '{ __typename }')).toEqual({ status: 404, code: 'STREAM_NOT_FOUND' });
}, 60_000);
