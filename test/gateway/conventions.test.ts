import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { getIntrospectionQuery } from 'graphql';
import { ConfigError, loadConfig } from '../../core/shared/config';
import type { ModelsService } from '../../core/models/service';
import { openTokenCore } from '../../core/token';
import { sqliteTokenStores } from '../../core/token/sqlite';
import { modelsResolvers } from '../../subgraphs/models';
import { fastHasher, pooledKeys } from '../shared/helpers';
import { freePort, startInTemp, type Started } from '../e2e/shared/server';
import { fixedCallOf, graphContext } from '../shared/helpers';
import type { KeyCaller } from '../../core/models/service';

/** The graph's conventions (DECISIONS "GraphQL"), black-box over HTTP against started platforms. */
type Answer = { status: number; body: any; type: string };
const answer = async (r: Response): Promise<Answer> => {
  const type = r.headers.get('content-type') ?? '';
  return { status: r.status, type, body: type.includes('json') ? await r.json() : await r.text() };
};
const post = (base: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${base}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  }).then(answer);
const get = (base: string, params: Record<string, unknown>, headers: Record<string, string> = { 'apollo-require-preflight': 'true' }) => {
  const query = new URLSearchParams(
    Object.entries(params).map(([k, v]): [string, string] => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
  );
  return fetch(`${base}/graphql?${query}`, { headers }).then(answer);
};
/** Every error of the answer has a code; the codes, in order. */
const codes = (a: Answer): string[] => {
  expect(a.body.errors?.length).toBeGreaterThan(0);
  for (const e of a.body.errors) expect(typeof e.extensions?.code).toBe('string');
  expect(JSON.stringify(a.body)).not.toMatch(/stacktrace/);
  return a.body.errors.map((e: any) => e.extensions.code);
};
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const apq = (hash: string) => ({ persistedQuery: { version: 1, sha256Hash: hash } });

describe('the gateway with its default settings', () => {
  let p: Started;
  beforeAll(async () => {
    p = await startInTemp('all', { GRAPHQL_APQ_CACHE_MB: '1' });
  });
  afterAll(async () => {
    await p?.stop();
  });

  it('codes every error: syntax, unknown fields, missing variables, credentials, bodies', async () => {
    expect(codes(await post(p.url, { query: '{ realm { name ' }))).toEqual(['GRAPHQL_PARSE_FAILED']);
    const unknown = await post(p.url, { query: '{ realm { name nope } }' });
    expect(unknown.status).toBe(400);
    expect(codes(unknown)).toEqual(['GRAPHQL_VALIDATION_FAILED']);
    const missing = await post(p.url, { query: 'query($id: ID!) { model(id: $id) { id } }' });
    expect(codes(missing)).toEqual(['BAD_USER_INPUT']);
    expect(missing.body.errors[0].message).toMatch(/\$id/);
    expect(codes(await post(p.url, { query: '{ viewer { username } }' }))).toEqual(['UNAUTHENTICATED']);
    expect(codes(await post(p.url, { query: '{ models { id } }' }))).toEqual(['UNAUTHENTICATED']);
    const broken = await fetch(`${p.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"query":',
    }).then(answer);
    expect([broken.status, codes(broken)]).toEqual([400, ['BAD_REQUEST']]);
    expect(codes(await post(p.url, { query: '{ realm { name } }', variables: [] }))).toEqual(['BAD_REQUEST']);
  });

  it('keeps the limits on depth and cost', async () => {
    const deep = await post(p.url, { query: `{ ${'a { '.repeat(13)}b${' }'.repeat(13)} }` });
    expect([deep.status, codes(deep)]).toEqual([400, ['QUERY_TOO_DEEP']]);
    const costly = await post(p.url, { query: `{ realm { ${'name '.repeat(2000)}} }` });
    expect([costly.status, codes(costly)]).toEqual([400, ['QUERY_TOO_COSTLY']]);
  });

  it('serves automatic persisted queries over POST and GET: not found first, then by hash', async () => {
    const query = '{ realm { name } }';
    const hash = sha256(query);
    const unknown = await post(p.url, { extensions: apq(hash) });
    expect(codes(unknown)).toEqual(['PERSISTED_QUERY_NOT_FOUND']);
    expect(unknown.body.errors[0].message).toBe('PersistedQueryNotFound');
    expect(codes(await get(p.url, { extensions: apq(hash) }))).toEqual(['PERSISTED_QUERY_NOT_FOUND']);
    expect((await post(p.url, { query, extensions: apq(hash) })).body).toEqual({ data: { realm: { name: 'default' } } });
    expect((await post(p.url, { extensions: apq(hash) })).body).toEqual({ data: { realm: { name: 'default' } } });
    expect((await get(p.url, { extensions: apq(hash) })).body).toEqual({ data: { realm: { name: 'default' } } });
    // Registering by GET works too (a CDN-cacheable query), once the client has the hash.
    const other = '{ realm { id } }';
    expect((await get(p.url, { query: other, extensions: apq(sha256(other)) })).body.data.realm.id).toEqual(expect.any(String));
    expect((await get(p.url, { extensions: apq(sha256(other)) })).body.data.realm.id).toEqual(expect.any(String));
  });

  it('keeps persisted queries in a bounded store (gateway.db): the oldest registered go first (GRAPHQL_APQ_CACHE_MB)', async () => {
    // Comments are not tokens, so each document is ~100 KB yet within GRAPHQL_MAX_TOKENS; 11 pass 1 MiB.
    const queries = Array.from({ length: 11 }, (_, i) => `# ${String(i).repeat(100_000)}\n{ realm { name } }`);
    for (const query of queries) expect((await post(p.url, { query, extensions: apq(sha256(query)) })).body.errors).toBeUndefined();
    expect(codes(await post(p.url, { extensions: apq(sha256(queries[0])) }))).toEqual(['PERSISTED_QUERY_NOT_FOUND']);
    expect((await post(p.url, { extensions: apq(sha256(queries[10])) })).body).toEqual({ data: { realm: { name: 'default' } } });
  });

  it('keeps CSRF prevention on: a simple GET or text/plain POST without a preflight header is refused', async () => {
    const query = '{ realm { name } }';
    const bareGet = await get(p.url, { query }, {});
    expect([bareGet.status, codes(bareGet)]).toEqual([400, ['BAD_REQUEST']]);
    expect(bareGet.body.errors[0].message).toMatch(/Cross-Site Request Forgery/);
    const plain = await fetch(`${p.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: JSON.stringify({ query }),
    }).then(answer);
    expect([plain.status, codes(plain)]).toEqual([400, ['BAD_REQUEST']]);
    expect(plain.body.errors[0].message).toMatch(/Cross-Site Request Forgery/);
    expect((await get(p.url, { query }, { 'x-apollo-operation-name': 'Anything' })).body).toEqual({ data: { realm: { name: 'default' } } });
  });

  it('answers introspection and serves Sandbox and GraphiQL by default', async () => {
    const schema = await post(p.url, { query: getIntrospectionQuery() });
    expect(schema.body.data.__schema.queryType.name).toBe('Query');
    const page = await fetch(`${p.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/embeddable-sandbox\.cdn\.apollographql\.com/);
    expect((await fetch(`${p.url}/graphiql`)).status).toBe(200);
  });
});

describe('introspection and the landing page turned off for production', () => {
  const off = { GRAPHQL_INTROSPECTION: 'false', GRAPHQL_LANDING_PAGE: 'false' };
  let all: Started;
  let token: Started;
  beforeAll(async () => {
    [all, token] = await Promise.all([startInTemp('all', off), startInTemp('token', off)]);
  });
  afterAll(async () => {
    await all?.stop();
    await token?.stop();
  });

  it.each([
    ['the gateway', () => all],
    ['a subgraph served alone', () => token],
  ])('%s refuses introspection with a code and serves no page', async (_, started) => {
    const { url } = started();
    const schema = await post(url, { query: getIntrospectionQuery() });
    expect(codes(schema)).toContain('GRAPHQL_VALIDATION_FAILED');
    expect(schema.body.errors[0].message).toMatch(/introspection is not allowed/);
    expect(codes(await post(url, { query: '{ __type(name: "Query") { name } }' }))).toContain('GRAPHQL_VALIDATION_FAILED');
    // __typename is not introspection of the schema: clients (Apollo Client) add it everywhere.
    expect((await post(url, { query: '{ __typename }' })).body).toEqual({ data: { __typename: 'Query' } });
    const page = await fetch(`${url}/graphql`, { headers: { accept: 'text/html' } }).then(answer);
    expect(page.status).toBe(400);
    expect(page.type).toMatch(/json/);
    expect(JSON.stringify(page.body)).not.toMatch(/sandbox/i);
    expect((await fetch(`${url}/graphiql`)).status).toBe(404);
  });

  it('validates the settings as booleans, and sizes the caches', () => {
    const c = loadConfig({ GRAPHQL_INTROSPECTION: 'OFF', GRAPHQL_LANDING_PAGE: '1', GRAPHQL_QUERY_PLAN_CACHE_MB: '8' });
    expect([c.GRAPHQL_INTROSPECTION, c.GRAPHQL_LANDING_PAGE, c.GRAPHQL_QUERY_PLAN_CACHE_MB, c.GRAPHQL_APQ_CACHE_MB]).toEqual([
      false,
      true,
      8,
      10,
    ]);
    const d = loadConfig({});
    expect([d.GRAPHQL_INTROSPECTION, d.GRAPHQL_LANDING_PAGE, d.GRAPHQL_QUERY_PLAN_CACHE_MB]).toEqual([true, true, 30]);
    expect(() => loadConfig({ GRAPHQL_INTROSPECTION: 'maybe' })).toThrow(ConfigError);
    expect(() => loadConfig({ GRAPHQL_LANDING_PAGE: 'maybe' })).toThrow(/GRAPHQL_LANDING_PAGE/);
    expect(() => loadConfig({ GRAPHQL_QUERY_PLAN_CACHE_MB: '0' })).toThrow(/GRAPHQL_QUERY_PLAN_CACHE_MB/);
  });
});

describe('a gateway whose subgraph is down', () => {
  let token: Started;
  let gateway: Started;
  let realm: string;
  // A proxy in front of a broken search deployment: 502 with an HTML page.
  const proxy: Server = createServer((_req, res) =>
    res.writeHead(502, { 'content-type': 'text/html' }).end('<h1>Bad Gateway</h1> upstream 10.0.0.7'),
  );
  // A chat deployment that accepts requests and never answers.
  const stalled: Server = createServer(() => undefined);
  beforeAll(async () => {
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    await new Promise<void>((resolve) => stalled.listen(0, '127.0.0.1', resolve));
    token = await startInTemp('token');
    // As `platform realm create` would, against the running server's data dir.
    const admin = await openTokenCore({
      stores: sqliteTokenStores(join(token.dataDir, 'token.db')),
      publicUrl: token.config.PUBLIC_URL,
      hasher: fastHasher,
      generateKey: pooledKeys,
    });
    realm = (await admin.admin.createRealm({ name: 'far' })).id;
    await admin.close();
    const dead = `http://127.0.0.1:${await freePort()}/graphql`;
    gateway = await startInTemp('gateway', {
      SUBGRAPH_TOKEN_URL: `${token.url}/graphql`,
      SUBGRAPH_SEARCH_URL: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/graphql`,
      SUBGRAPH_MODELS_URL: dead,
      SUBGRAPH_CHAT_URL: `http://127.0.0.1:${(stalled.address() as AddressInfo).port}/graphql`,
      // Long enough that the live token subgraph answers within it on a loaded machine.
      GRAPHQL_SUBGRAPH_TIMEOUT_MS: '2000',
    });
  });
  afterAll(async () => {
    await gateway?.stop();
    await token?.stop();
    await new Promise((resolve) => proxy.close(resolve));
    stalled.closeAllConnections();
    await new Promise((resolve) => stalled.close(resolve));
  });

  it('gives up on a subgraph that never answers after GRAPHQL_SUBGRAPH_TIMEOUT_MS, naming it', async () => {
    const res = await post(gateway.url, {
      query: 'query($r: ID) { realm(id: $r) { name } sources(input: { query: "x" }) { query } }',
      variables: { r: realm },
    });
    expect(res.body.data).toEqual({ realm: { name: 'far' }, sources: null });
    expect(codes(res)).toEqual(['UPSTREAM_ERROR']);
    expect(res.body.errors[0]).toMatchObject({ path: ['sources'], extensions: { serviceName: 'chat' } });
  });

  it('answers the other subgraphs’ data at once, with an UPSTREAM_ERROR naming the one down', async () => {
    // At once: without waiting for the subgraph timeout, so before a query that can only end by it (the stalled chat subgraph).
    const ended: string[] = [];
    const stalling = post(gateway.url, { query: '{ sources(input: { query: "x" }) { query } }' }).then(() =>
      ended.push('the stalled one, by the timeout'),
    );
    const query = 'query($r: ID) { realm(id: $r) { name } model(id: "local-chat") { id } }';
    const res = await post(gateway.url, { query, variables: { r: realm } }, { 'api-key': 'any' });
    ended.push('the one down');
    await stalling;
    expect(ended).toEqual(['the one down', 'the stalled one, by the timeout']);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ realm: { name: 'far' }, model: null });
    expect(codes(res)).toEqual(['UPSTREAM_ERROR']);
    expect(res.body.errors[0]).toMatchObject({ message: 'The models subgraph is unavailable', extensions: { serviceName: 'models' } });
    expect(JSON.stringify(res.body)).not.toContain('127.0.0.1');
  });

  it('names a subgraph that answers an HTTP error, without its page or address', async () => {
    const res = await post(gateway.url, {
      query: 'query($r: ID) { realm(id: $r) { name } document(id: "d") { id } }',
      variables: { r: realm },
    });
    expect(res.body.data).toEqual({ realm: { name: 'far' }, document: null });
    expect(codes(res)).toEqual(['UPSTREAM_ERROR']);
    expect(res.body.errors[0]).toMatchObject({ message: 'The search subgraph answered HTTP 502', extensions: { serviceName: 'search' } });
    expect(JSON.stringify(res.body)).not.toMatch(/10\.0\.0\.7|Bad Gateway|127\.0\.0\.1/);
  });

  it('codes the errors of a subgraph served alone', async () => {
    expect(codes(await post(token.url, { query: '{ realm { nope } }' }))).toEqual(['GRAPHQL_VALIDATION_FAILED']);
    expect(codes(await post(token.url, { query: '{ viewer { username } }' }))).toEqual(['UNAUTHENTICATED']);
    expect(codes(await post(token.url, { query: `{ ${'a { '.repeat(13)}b${' }'.repeat(13)} }` }))).toEqual(['QUERY_TOO_DEEP']);
  });
});

describe('Model references', () => {
  it('are resolved with one catalog read per request, however many (one DataLoader per request)', async () => {
    let reads = 0;
    const catalog = ['a', 'b', 'c'].map((id) => ({
      id,
      group: 'a',
      kind: 'chat',
      status: 'active',
      contextLength: 1,
      inputKinds: ['text'],
      upstream: { provider: 'local' },
      price: {},
    }));
    const service = {
      listModels: async () => {
        reads += 1;
        return catalog;
      },
    } as unknown as ModelsService;
    const resolve = modelsResolvers(service, fixedCallOf({ key: { tenant: 't' } } as KeyCaller)).Model.__resolveReference;
    const request = () => graphContext({ 'api-key': 'k' });
    const one = request();
    const refs = await Promise.all(['a', 'b', 'x', 'c', 'a'].map((id) => resolve({ id }, one)));
    expect(refs.map((r) => r?.id ?? null)).toEqual(['a', 'b', null, 'c', 'a']);
    expect(reads).toBe(1);
    // Another request gets its own loader: nothing is cached across callers.
    await resolve({ id: 'a' }, request());
    expect(reads).toBe(2);
  });
});
