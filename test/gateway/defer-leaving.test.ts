import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { createGateway, type Gateway } from '../../gateway/server';
import { readSupergraph } from '../../gateway/supergraph';
import { createRestApp } from '../../rest/shared/app';
import { socketClient } from '../e2e/shared/subscription-wire';

/**
 * A client leaving a deferred operation midway stops the fetches still to come, as for a
 * subscription: the response dropped (HTTP multipart) or the operation completed (graphql-ws). The
 * gateway reaches three fake remote subgraphs: chat answers the initial part, models holds the
 * outer deferred part's fetch until the test releases it, search would serve the nested part
 * (which only starts once the outer one has been sent) and counts the fetches it gets.
 */
const log = pino({ level: 'silent' });
const QUERY = `{ sources(input: { query: "x" }) { query ... @defer { model { contextLength } citations { document { id ... @defer { title } } } } } }`;

interface FakeSubgraph {
  server: Server;
  url: string;
  /** The operations received so far. */
  received: string[];
}

async function fakeSubgraph(answer: (query: string) => Promise<unknown>): Promise<FakeSubgraph> {
  const received: string[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const { query } = JSON.parse(body) as { query: string };
      received.push(query);
      void answer(query).then((data) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data })));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`, received };
}

const until = async (done: () => boolean) => {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 10));
};

let chat: FakeSubgraph;
let models: FakeSubgraph;
let search: FakeSubgraph;
let gateway: Gateway;
let server: Server;
let base: string;
let ws: { close(): Promise<void> } | undefined;
/** Releases the models fetches held so far. */
let held: (() => void)[] = [];
const release = () => {
  for (const r of held) r();
  held = [];
};

beforeAll(async () => {
  chat = await fakeSubgraph(async () => ({
    sources: { query: 'x', citations: [{ document: { __typename: 'Document', id: 'd1' } }], model: { __typename: 'Model', id: 'm1' } },
  }));
  models = await fakeSubgraph(
    () => new Promise((resolve) => held.push(() => resolve({ _entities: [{ __typename: 'Model', contextLength: 8192 }] }))),
  );
  search = await fakeSubgraph(async () => ({ _entities: [{ __typename: 'Document', title: 'Far' }] }));
  gateway = await createGateway({
    supergraphSdl: readSupergraph(),
    targets: { chat: { url: chat.url }, models: { url: models.url }, search: { url: search.url } },
    log,
  });
  server = createServer(createRestApp([], { log, extra: [{ path: '/', router: gateway.router }] }));
  ws = gateway.webSocket?.(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  release();
  await ws?.close();
  await new Promise((resolve) => server?.close(resolve));
  await gateway?.stop();
  for (const s of [chat, models, search]) s?.server.close();
});

/** The whole operation once more, to its end: any fetch the client who left would still have caused has happened by then. */
async function wholeRunThrough() {
  const seen = models.received.length;
  const answer = fetch(`${base}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'multipart/mixed;deferSpec=20220824' },
    body: JSON.stringify({ query: QUERY }),
  }).then((r) => r.text());
  await until(() => models.received.length > seen);
  release();
  const text = await answer;
  expect(text).toContain('"title":"Far"');
}

it('an HTTP client dropping the multipart response after the initial part: the nested part never reaches its subgraph', async () => {
  const [fetchedModels, searched] = [models.received.length, search.received.length];
  const aborted = new AbortController();
  const res = await fetch(`${base}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'multipart/mixed;deferSpec=20220824' },
    body: JSON.stringify({ query: QUERY }),
    signal: aborted.signal,
  });
  const reader = res.body!.getReader();
  let text = '';
  while (!text.includes('"hasNext":true')) text += new TextDecoder().decode((await reader.read()).value);
  expect(text).toContain('{"data":{"sources":{"query":"x"}},"hasNext":true}');
  await until(() => held.length > 0);
  aborted.abort();
  await reader.cancel().catch(() => undefined);
  // The outer part's fetch was on its way; once it ends, nothing follows it.
  release();
  await wholeRunThrough();
  // Its own outer fetch and the run-through's; one nested fetch, the run-through's.
  expect(models.received.length).toBe(fetchedModels + 2);
  expect(search.received.length).toBe(searched + 1);
});

it('a graphql-ws client completing the operation after the initial part: the nested part never reaches its subgraph', async () => {
  const searched = search.received.length;
  const client = socketClient(base, {});
  try {
    const parts = client.iterate({ query: QUERY });
    const first = await parts.next();
    expect(first.value).toEqual({ data: { sources: { query: 'x' } }, hasNext: true });
    await until(() => held.length > 0);
    await parts.return?.();
    release();
    await wholeRunThrough();
    expect(search.received.length).toBe(searched + 1);
  } finally {
    await client.dispose();
  }
});
