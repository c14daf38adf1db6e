import { ApolloClient, gql, HttpLink, InMemoryCache } from '@apollo/client';
import { Defer20220824Handler } from '@apollo/client/incremental';
import { GraphQLWsLink } from '@apollo/client/link/subscriptions';
import { Client as UrqlClient, fetchExchange, type OperationResult } from '@urql/core';
import { createClient as sseClient } from 'graphql-sse';
import { chatFixture, type ChatFixture } from '../e2e/chat/fixture';
import { startInTemp, type Started } from '../e2e/shared/server';
import { socketClient } from '../e2e/shared/subscription-wire';
import { mergeParts, type Part } from './defer-parts';

/**
 * `@defer` through the gateway as clients nobody here wrote receive it, each on its transport:
 * Apollo Client 4 (HttpLink over multipart/mixed, GraphQLWsLink over graphql-ws, both with the
 * 2022-08-24 handler), urql (fetchExchange, multipart/mixed), graphql-sse's client (GraphQL over
 * SSE, distinct and single connection modes) and graphql-ws's (graphql-ws). Each gets the initial part first (the documents without the
 * deferred fields, which another subgraph resolves) and then the deferred parts, the whole equal to
 * the same query without `@defer`; a plain JSON client gets that one result. With the subgraphs in
 * process (the platform's gateway) and served alone (a gateway reaching them over HTTP).
 */
let f: ChatFixture;
const alone: Record<string, Started> = {};
let remote: Started;

beforeAll(async () => {
  f = await chatFixture();
  const shared = { PLATFORM_DATA_DIR: f.platform.dataDir, AUTH_ISSUER_URL: f.url, LOG_LEVEL: 'silent' };
  for (const name of ['token', 'search', 'models'] as const) alone[name] = await startInTemp(name, shared);
  alone.chat = await startInTemp('chat', { ...shared, SEARCH_URL: alone.search.url, MODELS_URL: alone.models.url });
  remote = await startInTemp('gateway', {
    AUTH_ISSUER_URL: f.url,
    SUBGRAPH_TOKEN_URL: `${alone.token.url}/graphql`,
    SUBGRAPH_SEARCH_URL: `${alone.search.url}/graphql`,
    SUBGRAPH_MODELS_URL: `${alone.models.url}/graphql`,
    SUBGRAPH_CHAT_URL: `${alone.chat.url}/graphql`,
  });
}, 120_000);
afterAll(async () => {
  await remote?.stop();
  for (const s of Object.values(alone).reverse()) await s.stop();
  await f?.stop();
});

const PLAIN = `query Sources($input: AskInput!) {
  sources(input: $input) { query citations { citation title document { id title chunkCount } } model { id contextLength } }
}`;
const DEFERRED = `query Sources($input: AskInput!) {
  sources(input: $input) {
    query
    citations { citation title document { id ... @defer(label: "document") { title chunkCount } } }
    ... @defer { model { id contextLength } }
  }
}`;
const VARIABLES = { input: { query: 'What are the side effects of aspirin?' } };
const user = () => ({ authorization: f.a, 'api-key': f.apiKey });

/** The citations' documents of an initial part: ids only, the deferred fields to come. */
const expectIdsOnly = (data: any) => {
  expect(data.sources.citations.length).toBeGreaterThan(0);
  for (const c of data.sources.citations) expect(Object.keys(c.document).filter((k) => k !== '__typename')).toEqual(['id']);
  expect(data.sources.model).toBeUndefined();
};

describe.each([
  ['subgraphs in process', () => f.url],
  ['subgraphs served alone', () => remote.url],
])('@defer through the gateway, %s', (_, base) => {
  const post = async (query: string, accept: string) => {
    const res = await fetch(`${base()}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept, ...user() },
      body: JSON.stringify({ query, variables: VARIABLES }),
    });
    return { res, text: await res.text() };
  };
  let plain: any;
  beforeAll(async () => {
    plain = JSON.parse((await post(PLAIN, 'application/json')).text);
    expect(plain.errors).toBeUndefined();
    expect(plain.data.sources.citations[0].document).toMatchObject({ title: 'Aspirin', chunkCount: 1 });
  });

  it('answers a client that takes no parts one result, the deferred fields inline', async () => {
    const { res, text } = await post(DEFERRED, 'application/json');
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('cache-control')).toBe('no-store'); // never cached, whole or in parts
    expect(JSON.parse(text)).toEqual(plain);
  });

  it('Apollo Client 4 (HttpLink, Defer20220824Handler): the initial part, then the whole as without @defer', async () => {
    const client = new ApolloClient({
      link: new HttpLink({ uri: `${base()}/graphql`, headers: user() }),
      cache: new InMemoryCache(),
      incrementalHandler: new Defer20220824Handler(),
    });
    const seen = await new Promise<any[]>((resolve, reject) => {
      const got: any[] = [];
      const sub = client.watchQuery({ query: gql(DEFERRED), variables: VARIABLES, fetchPolicy: 'no-cache' }).subscribe({
        next: (r) => {
          if (r.data) got.push(r);
          if (r.dataState === 'complete') {
            sub.unsubscribe();
            resolve(got);
          }
        },
        error: reject,
      });
    });
    expect(seen[0].dataState).toBe('streaming');
    expectIdsOnly(seen[0].data);
    const whole = await client.query({ query: gql(PLAIN), variables: VARIABLES, fetchPolicy: 'no-cache' });
    expect(seen.at(-1).data).toEqual(whole.data);
    expect(seen.at(-1).error).toBeUndefined();
  });

  it('urql with @stream: the list first empty, then whole as without @stream', async () => {
    const headers = { ...user(), 'apollo-require-preflight': 'true' };
    const urql = new UrqlClient({ url: `${base()}/graphql`, exchanges: [fetchExchange], fetchOptions: { headers } });
    const results = await new Promise<OperationResult[]>((resolve) => {
      const got: OperationResult[] = [];
      urql.query('{ models @stream(initialCount: 0) { id kind } }', {}).subscribe((r) => {
        got.push(r);
        if (r.hasNext === false) resolve(got);
      });
    });
    expect(results[0].data).toEqual({ models: [] });
    const whole = await urql.query('{ models { id kind } }', {}).toPromise();
    expect(whole.data.models.length).toBeGreaterThan(0);
    expect(results.at(-1)!.data).toEqual(whole.data);
  });

  it('Apollo Client 4 (GraphQLWsLink over graphql-ws): the initial part, then the whole as without @defer', async () => {
    const ws = socketClient(base(), user());
    const client = new ApolloClient({
      link: new GraphQLWsLink(ws),
      cache: new InMemoryCache(),
      incrementalHandler: new Defer20220824Handler(),
    });
    try {
      const seen = await new Promise<any[]>((resolve, reject) => {
        const got: any[] = [];
        const sub = client.watchQuery({ query: gql(DEFERRED), variables: VARIABLES, fetchPolicy: 'no-cache' }).subscribe({
          next: (r) => {
            if (r.data) got.push(r);
            if (r.dataState === 'complete') {
              sub.unsubscribe();
              resolve(got);
            }
          },
          error: reject,
        });
      });
      expectIdsOnly(seen[0].data);
      const whole = await client.query({ query: gql(PLAIN), variables: VARIABLES, fetchPolicy: 'no-cache' });
      expect(seen.at(-1).data).toEqual(whole.data);
    } finally {
      await ws.dispose();
    }
  });

  it('urql (fetchExchange, its own Accept, a GET): the initial part, then the whole as without @defer', async () => {
    // urql 6 sends a query by GET, which the CSRF rule lets through with the preflight header.
    const headers = { ...user(), 'apollo-require-preflight': 'true' };
    const urql = new UrqlClient({ url: `${base()}/graphql`, exchanges: [fetchExchange], fetchOptions: { headers } });
    const results = await new Promise<OperationResult[]>((resolve) => {
      const got: OperationResult[] = [];
      urql.query(DEFERRED, VARIABLES).subscribe((r) => {
        got.push(r);
        if (r.hasNext === false) resolve(got);
      });
    });
    expect(results[0].hasNext).toBe(true);
    expectIdsOnly(results[0].data);
    expect(results.at(-1)!.error).toBeUndefined();
    expect(results.at(-1)!.data).toEqual(plain.data);
  });

  it('multipart/mixed as the 2022-08-24 draft frames it: boundary `-`, JSON parts, the closing `-----`', async () => {
    const { res, text } = await post(DEFERRED, 'multipart/mixed;deferSpec=20220824, application/json');
    expect(res.headers.get('content-type')).toBe('multipart/mixed;boundary="-";deferSpec=20220824');
    expect(res.headers.get('cache-control')).toMatch(/no-store/);
    expect(text.endsWith('\r\n-----\r\n')).toBe(true);
    const parts: Part[] = text
      .slice(0, -'\r\n-----\r\n'.length)
      .split('\r\n---\r\n')
      .slice(1)
      .map((p) => {
        expect(p.startsWith('content-type: application/json; charset=utf-8\r\n\r\n')).toBe(true);
        return JSON.parse(p.slice(p.indexOf('\r\n\r\n') + 4));
      });
    expect(parts[0].hasNext).toBe(true);
    expect(parts.at(-1)!.hasNext).toBe(false);
    const items = parts.slice(1).flatMap((p) => p.incremental ?? []);
    expect(items).toEqual(
      expect.arrayContaining([
        { data: { title: 'Aspirin', chunkCount: 1 }, path: ['sources', 'citations', 0, 'document'], label: 'document' },
        { data: { model: plain.data.sources.model }, path: ['sources'] },
      ]),
    );
    expect(mergeParts(parts)).toEqual(plain);
  });

  it("graphql-sse's client (GraphQL over SSE): one `next` per part, then `complete`", async () => {
    const parts: Part[] = [];
    for await (const p of sseClient({ url: `${base()}/graphql`, headers: user(), retryAttempts: 0 }).iterate({
      query: DEFERRED,
      variables: VARIABLES,
    }))
      parts.push(p as Part);
    expect(parts.length).toBeGreaterThan(1);
    expectIdsOnly(parts[0].data);
    expect(parts.at(-1)!.hasNext).toBe(false);
    expect(mergeParts(parts)).toEqual(plain);
  });

  it("graphql-sse's client in its single connection mode: one `next` per part on the reserved stream, then `complete`", async () => {
    const client = sseClient({ url: `${base()}/graphql`, headers: user(), retryAttempts: 0, singleConnection: true });
    try {
      const parts: Part[] = [];
      for await (const p of client.iterate({ query: DEFERRED, variables: VARIABLES })) parts.push(p as Part);
      expect(parts.length).toBeGreaterThan(1);
      expectIdsOnly(parts[0].data);
      expect(parts.at(-1)!.hasNext).toBe(false);
      expect(mergeParts(parts)).toEqual(plain);
    } finally {
      client.dispose();
    }
  });

  it("graphql-ws's client: one `next` message per part, then `complete`", async () => {
    const ws = socketClient(base(), user());
    try {
      const parts: Part[] = [];
      for await (const p of ws.iterate({ query: DEFERRED, variables: VARIABLES })) parts.push(p as Part);
      expect(parts.length).toBeGreaterThan(1);
      expectIdsOnly(parts[0].data);
      expect(mergeParts(parts)).toEqual(plain);
    } finally {
      await ws.dispose();
    }
  });
});
