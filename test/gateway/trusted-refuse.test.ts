import { createHash } from 'node:crypto';
import { getIntrospectionQuery } from 'graphql';
import { bearerFor } from '../../clients/admin/sign-in';
import { socketClient } from '../e2e/shared/subscription-wire';
import { startInTemp, type Started } from '../e2e/shared/server';
import { sseResults } from '../e2e/shared/subscription-wire';

/**
 * A platform started with GRAPHQL_TRUSTED_DOCUMENTS=refuse, over real HTTP and WebSocket: an app's
 * list loaded through the admin API (platform administrators only, audited), then its documents run
 * by `documentId` (or Relay's `doc_id`), by Apollo's persisted-query hash (POST and GET), by their exact text, over
 * graphql-ws and GraphQL over SSE; anything else refused with PERSISTED_QUERY_NOT_LISTED,
 * introspection and APQ registrations included; the explorers say why.
 */
const REALM = 'query Realm { realm { id name } }';
const ISSUER = 'query Issuer($x: Boolean!) { realm { id issuer @include(if: $x) } }';
const UNLISTED = 'query Unlisted { realm { issuer } }';
const DEFERRED = 'query Deferred { realm { id ... @defer(label: "slow") { name } } }';
const hex = (s: string) => createHash('sha256').update(s).digest('hex');
const manifest = {
  format: 'apollo-persisted-query-manifest',
  version: 1,
  operations: [
    { id: hex(REALM), body: REALM, name: 'Realm', type: 'query' },
    { id: hex(ISSUER), body: ISSUER, name: 'Issuer', type: 'query' },
    { id: hex(DEFERRED), body: DEFERRED, name: 'Deferred', type: 'query' },
  ],
};

let p: Started;
let admin: string;
let user: string;
let realm: string;
beforeAll(async () => {
  p = await startInTemp('all', { GRAPHQL_TRUSTED_DOCUMENTS: 'refuse' });
  const boot = p.bootstrap!.values;
  realm = boot.realm;
  admin = `Bearer ${await bearerFor(p.url, { kind: 'password', realm, username: boot.admin_username, password: boot.admin_password })}`;
  user = `Bearer ${await bearerFor(p.url, { kind: 'client', realm, clientId: boot.client_id, clientSecret: boot.client_secret })}`;
}, 90_000);
afterAll(() => p?.stop());

const call = async (method: string, path: string, opts: { auth?: string; body?: unknown; headers?: Record<string, string> } = {}) => {
  const res = await fetch(`${p.url}${path}`, {
    method,
    headers: {
      ...(opts.auth ? { authorization: opts.auth } : {}),
      ...(opts.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...opts.headers,
    },
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
  const text = await res.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* HTML */
  }
  return { status: res.status, body, headers: res.headers };
};
const post = (body: unknown) => call('POST', '/graphql', { body });
const get = (params: Record<string, unknown>) =>
  call(
    'GET',
    `/graphql?${new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, typeof v === 'string' ? v : JSON.stringify(v)]))}`,
    { headers: { 'apollo-require-preflight': 'true' } },
  );
const notListed = (res: { status: number; body: any }) => {
  expect(res.status).toBe(400);
  expect(res.body).toEqual({
    errors: [{ message: expect.stringMatching(/not listed|No app's list holds/), extensions: { code: 'PERSISTED_QUERY_NOT_LISTED' } }],
  });
};
const ADMIN = '/admin/api/v1/graphql/documents';
/** The platform's own list, the web console's operations (test/gateway/trusted-console.test.ts), always first. */
const CONSOLE = {
  app: 'console',
  format: 'apollo-persisted-query-manifest',
  documents: expect.any(Number),
  loaded_at: expect.any(String),
  built_in: true,
};

describe('loading an app list through the admin API', () => {
  it('is for platform administrators only', async () => {
    expect((await call('POST', `${ADMIN}/web`, { auth: user, body: manifest })).status).toBe(403);
    expect((await call('GET', ADMIN, { auth: user })).status).toBe(403);
    expect((await call('GET', ADMIN)).status).toBe(401);
  });

  it('refuses a manifest with an invalid document, naming it, and keeps nothing of it', async () => {
    const bad = { ...manifest, operations: [...manifest.operations, { id: hex('{ nope }'), body: '{ nope }', type: 'query' }] };
    const res = await call('POST', `${ADMIN}/web`, { auth: admin, body: bad });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toMatch(new RegExp(`Document '${hex('{ nope }')}' is not valid against the graph's schema`));
    expect((await call('GET', ADMIN, { auth: admin })).body).toEqual({ items: [CONSOLE] });
  });

  it("refuses a manifest with a document over the deployment's bounds (GRAPHQL_MAX_ALIASES), which no request could run", async () => {
    const wide = `query Wide { ${Array.from({ length: 31 }, (_, i) => `a${i}: realm { id }`).join(' ')} }`;
    const res = await call('POST', `${ADMIN}/web`, { auth: admin, body: { [`sha256:${hex(wide)}`]: wide } });
    expect(res.status).toBe(400);
    expect(res.body.detail).toBe(
      `Document 'sha256:${hex(wide)}' is over the graph's bounds, so no request could run it: The operation uses 31 aliases; the limit is 30`,
    );
    expect((await call('GET', ADMIN, { auth: admin })).body).toEqual({ items: [CONSOLE] });
  });

  it('loads, lists and audits it', async () => {
    const loaded = await call('POST', `${ADMIN}/web`, { auth: admin, body: manifest });
    expect(loaded.status).toBe(200);
    expect(loaded.body).toEqual({ app: 'web', format: 'apollo-persisted-query-manifest', documents: 3, loaded_at: expect.any(String) });
    expect((await call('GET', ADMIN, { auth: admin })).body).toEqual({ items: [CONSOLE, loaded.body] });
    const audit = await call('GET', '/admin/api/v1/audit-events?type=graphql_documents.load', { auth: admin });
    expect(audit.body.items.map((e: any) => [e.outcome, e.target?.id])).toEqual([
      ['success', 'web'],
      ['failure', 'web'], // over the bounds
      ['failure', 'web'], // invalid
    ]);
  });
});

describe('requests in refuse mode', () => {
  it('runs a listed document by documentId (sha256:<hex>), by Apollo hash and by its text, POST and GET', async () => {
    const data = { realm: { id: expect.any(String), name: expect.any(String) } };
    const pq = { persistedQuery: { version: 1, sha256Hash: hex(REALM) } };
    for (const res of [
      await post({ documentId: `sha256:${hex(REALM)}` }),
      await post({ extensions: pq }),
      await post({ query: REALM }),
      await get({ documentId: `sha256:${hex(REALM)}` }),
      await get({ extensions: pq }),
    ]) {
      expect([res.status, res.body]).toEqual([200, { data }]);
    }
    const withVariables = await post({ documentId: hex(ISSUER), variables: { x: true }, operationName: 'Issuer' });
    expect(withVariables.body).toEqual({ data: { realm: { id: expect.any(String), issuer: expect.stringContaining('http') } } });
  });

  it("runs Relay's persisted queries (its compiler's md5 ids) by `doc_id`, as Relay's network layer sends it, POST, GET and graphql-ws", async () => {
    // relay-compiler's persisted_queries.json: {"<md5 of the text>": "<text>"}.
    const text = 'query RelayRealm { realm { name } }';
    const md5 = createHash('md5').update(text).digest('hex');
    expect((await call('POST', `${ADMIN}/relay-app`, { auth: admin, body: { [md5]: text } })).status).toBe(200);
    const data = { data: { realm: { name: expect.any(String) } } };
    expect(await post({ doc_id: md5, variables: {} })).toMatchObject({ status: 200, body: data });
    expect(await get({ doc_id: md5 })).toMatchObject({ status: 200, body: data });
    notListed(await post({ doc_id: createHash('md5').update(UNLISTED).digest('hex'), variables: {} }));
    // Over graphql-ws, beside the empty `query` the protocol requires.
    const client = socketClient(p.url, {});
    try {
      const got = await new Promise<unknown[]>((resolve, reject) => {
        const results: unknown[] = [];
        client.subscribe({ query: '', doc_id: md5 } as never, {
          next: (r) => results.push(r),
          error: reject,
          complete: () => resolve(results),
        });
      });
      expect(got).toEqual([data]);
    } finally {
      await client.dispose();
    }
    expect((await call('DELETE', `${ADMIN}/relay-app`, { auth: admin })).status).toBe(204);
  });

  it('runs a listed @defer document by id in parts over multipart/mixed, and refuses an unlisted one', async () => {
    const accept = { accept: 'multipart/mixed;deferSpec=20220824, application/json' };
    const parts = await call('POST', '/graphql', { body: { documentId: `sha256:${hex(DEFERRED)}` }, headers: accept });
    expect(parts.status).toBe(200);
    expect(parts.headers.get('content-type')).toMatch(/^multipart\/mixed/);
    const payloads = String(parts.body)
      .split('\r\n---')
      .map((part) => part.slice(part.indexOf('{')))
      .filter((part) => part.startsWith('{'))
      .map((part) => JSON.parse(part.replace(/\r\n-*\r\n$/, '').trim()));
    expect(payloads).toEqual([
      { data: { realm: { id: expect.any(String) } }, hasNext: true },
      { incremental: [{ data: { name: expect.any(String) }, path: ['realm'], label: 'slow' }], hasNext: false },
    ]);
    const unlisted = await call('POST', '/graphql', { body: { query: DEFERRED.replace('name', 'issuer') }, headers: accept });
    expect([unlisted.status, unlisted.body.errors?.[0]?.extensions?.code]).toEqual([400, 'PERSISTED_QUERY_NOT_LISTED']);
  });

  it('refuses anything else: an unlisted text, an unknown id or hash, an APQ registration, introspection', async () => {
    notListed(await post({ query: UNLISTED }));
    notListed(await get({ query: UNLISTED }));
    notListed(await post({ documentId: 'sha256:0000' }));
    notListed(await post({ extensions: { persistedQuery: { version: 1, sha256Hash: hex(UNLISTED) } } }));
    notListed(await post({ query: UNLISTED, extensions: { persistedQuery: { version: 1, sha256Hash: hex(UNLISTED) } } }));
    notListed(await post({ query: getIntrospectionQuery() }));
    notListed(await post({ query: '{ __typename }' }));
  });

  it('resolves ids over graphql-ws and GraphQL over SSE, and refuses there too', async () => {
    const client = socketClient(p.url, {});
    try {
      const sent = (payload: object) =>
        new Promise<any[]>((resolve) => {
          const got: any[] = [];
          client.subscribe(payload as never, {
            next: (r) => got.push(r),
            error: (e) => resolve([...got, { error: e }]),
            complete: () => resolve(got),
          });
        });
      expect(await sent({ query: '', documentId: `sha256:${hex(REALM)}` })).toEqual([
        { data: { realm: { id: expect.any(String), name: expect.any(String) } } },
      ]);
      expect(await sent({ query: '', extensions: { persistedQuery: { version: 1, sha256Hash: hex(REALM) } } })).toHaveLength(1);
      const refused = await sent({ query: UNLISTED });
      expect(refused[0].error[0]).toMatchObject({ extensions: { code: 'PERSISTED_QUERY_NOT_LISTED' } });
    } finally {
      await client.dispose();
    }
    const sse = await fetch(`${p.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ documentId: `sha256:${hex(REALM)}` }),
    });
    expect(sse.status).toBe(200);
    const { results, complete } = sseResults(await sse.text());
    expect(complete).toBe(true);
    expect(results).toEqual([{ data: { realm: { id: expect.any(String), name: expect.any(String) } } }]);
    const sseGet = await fetch(`${p.url}/graphql?${new URLSearchParams({ documentId: `sha256:${hex(REALM)}` })}`, {
      headers: { accept: 'text/event-stream', 'apollo-require-preflight': 'true' },
    });
    expect(sseGet.status).toBe(200);
    expect(sseResults(await sseGet.text()).results).toEqual(results);
    const refusedSse = await fetch(`${p.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: UNLISTED }),
    });
    expect(refusedSse.status).toBe(400);
    expect(((await refusedSse.json()) as any).errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_LISTED');
  });

  it('Apollo Sandbox and GraphiQL say why they cannot run what is typed there', async () => {
    const sandbox = await call('GET', '/graphql', { headers: { accept: 'text/html' } });
    expect(sandbox.status).toBe(200);
    expect(sandbox.body).toContain('GRAPHQL_TRUSTED_DOCUMENTS=refuse');
    const graphiql = await call('GET', '/graphiql');
    expect(graphiql.body).toContain('<p id="graph-notice" role="note">This graph runs only the operations its apps ship');
  });

  it("an app's removed list is unlisted at once in this process", async () => {
    expect((await call('DELETE', `${ADMIN}/web`, { auth: admin })).status).toBe(204);
    expect((await call('DELETE', `${ADMIN}/web`, { auth: admin })).status).toBe(404);
    notListed(await post({ documentId: `sha256:${hex(REALM)}` }));
    notListed(await post({ query: REALM }));
  });
});
