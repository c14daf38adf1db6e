import { join } from 'node:path';
import { openTokenCore } from '../../core/token';
import { sqliteTokenStores } from '../../core/token/sqlite';
import { startInTemp, type Started } from '../e2e/shared/server';
import { fastHasher, pooledKeys } from '../shared/helpers';

/** `platform serve token` and `platform serve gateway` as two servers, the gateway reaching the subgraph over HTTP. */
describe('the gateway reaching the token subgraph over HTTP', () => {
  let token: Started;
  let search: Started;
  let models: Started;
  let chat: Started;
  let gateway: Started;
  let creds: { realm: string; client_id: string; client_secret: string };
  let writer: typeof creds;

  beforeAll(async () => {
    token = await startInTemp('token');
    // Small REST and document limits: an upload's body passes them at the gateway and at the subgraph (GRAPHQL_MAX_BODY_BYTES).
    search = await startInTemp('search', { AUTH_ISSUER_URL: token.url, BODY_LIMIT_BYTES: '65536' });
    models = await startInTemp('models', { AUTH_ISSUER_URL: token.url });
    chat = await startInTemp('chat', { AUTH_ISSUER_URL: token.url, SEARCH_URL: search.url, MODELS_URL: models.url });
    gateway = await startInTemp('gateway', {
      SUBGRAPH_TOKEN_URL: `${token.url}/graphql`,
      SUBGRAPH_SEARCH_URL: `${search.url}/graphql`,
      SUBGRAPH_MODELS_URL: `${models.url}/graphql`,
      SUBGRAPH_CHAT_URL: `${chat.url}/graphql`,
      BODY_LIMIT_BYTES: '65536',
    });
    // As `platform realm create` / `client create` would, against the running server's data dir.
    const admin = await openTokenCore({
      stores: sqliteTokenStores(join(token.dataDir, 'token.db')),
      publicUrl: token.config.PUBLIC_URL,
      hasher: fastHasher,
      generateKey: pooledKeys,
    });
    const r = (await admin.admin.createRealm({ name: 'remote' })).id;
    const c = await admin.admin.createClient({ realm: r, clientId: 'far', roles: ['search:read'] });
    const w = await admin.admin.createClient({ realm: r, clientId: 'near', roles: ['search:read', 'search:write'] });
    await admin.close();
    creds = { realm: r, client_id: 'far', client_secret: c.client_secret };
    writer = { realm: r, client_id: 'near', client_secret: w.client_secret };
  });
  afterAll(async () => {
    await gateway?.stop();
    await chat?.stop();
    await search?.stop();
    await models?.stop();
    await token?.stop();
  });

  const gql = (base: string, query: string, variables: Record<string, unknown>, headers: Record<string, string> = {}) =>
    fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ query, variables }),
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));

  it('forwards the bearer token: the remote subgraph verifies it and knows the caller', async () => {
    const issued = await gql(gateway.url, 'mutation($i: ClientTokenInput!) { issueClientToken(input: $i) { accessToken } }', {
      i: { realm: creds.realm, clientId: creds.client_id, clientSecret: creds.client_secret },
    });
    const bearer = issued.body.data.issueClientToken.accessToken as string;
    const me = await gql(gateway.url, '{ viewer { username roles realm { name } } }', {}, { authorization: `Bearer ${bearer}` });
    expect(me.body).toEqual({ data: { viewer: { username: 'service-account-far', roles: ['search:read'], realm: { name: 'remote' } } } });
    const nobody = await gql(gateway.url, '{ viewer { username } }', {});
    expect(nobody.body.errors[0].extensions).toMatchObject({ code: 'UNAUTHENTICATED', serviceName: 'token' });
  });

  it('issues and introspects a token through the gateway', async () => {
    const issued = await gql(gateway.url, 'mutation($i: ClientTokenInput!) { issueClientToken(input: $i) { accessToken tokenType } }', {
      i: { realm: creds.realm, clientId: creds.client_id, clientSecret: creds.client_secret },
    });
    expect(issued.body.errors).toBeUndefined();
    expect(issued.body.data.issueClientToken.tokenType).toBe('Bearer');
    const seen = await gql(
      gateway.url,
      'query($t: String!, $r: ID!) { introspectToken(token: $t, realm: $r) { active clientId realm { id name } } }',
      {
        t: issued.body.data.issueClientToken.accessToken,
        r: creds.realm,
      },
    );
    expect(seen.body.data.introspectToken).toEqual({ active: true, clientId: 'far', realm: { id: creds.realm, name: 'remote' } });
  });

  it('keeps the subgraph error codes across the HTTP hop', async () => {
    const bad = await gql(gateway.url, 'mutation($i: ClientTokenInput!) { issueClientToken(input: $i) { accessToken } }', {
      i: { realm: creds.realm, clientId: creds.client_id, clientSecret: 'wrong' },
    });
    expect(bad.body.errors[0]).toMatchObject({
      message: 'Authentication failed',
      extensions: { code: 'UNAUTHENTICATED', serviceName: 'token' },
    });
  });

  it('uploads a file larger than BODY_LIMIT_BYTES through the remote search subgraph, and reads its passages there', async () => {
    const issued = await gql(gateway.url, 'mutation($i: ClientTokenInput!) { issueClientToken(input: $i) { accessToken } }', {
      i: { realm: writer.realm, clientId: writer.client_id, clientSecret: writer.client_secret },
    });
    const auth = { authorization: `Bearer ${issued.body.data.issueClientToken.accessToken as string}` };
    const text = Array.from({ length: 1300 }, (_, i) => `Note ${i}: kingfishers dive for minnows in clear streams.`).join(' ');
    const contentBase64 = Buffer.from(text).toString('base64');
    expect(contentBase64.length).toBeGreaterThan(65536);
    const up = await gql(
      gateway.url,
      'mutation($i: UploadDocumentInput!) { uploadDocument(input: $i) { id size chunkCount } }',
      { i: { fileName: 'kingfishers.txt', contentBase64 } },
      auth,
    );
    expect(up.body.errors).toBeUndefined();
    expect(up.body.data.uploadDocument.size).toBe(text.length);
    const read = await gql(
      gateway.url,
      'query($id: ID!) { document(id: $id) { passages(first: 200) { total nextCursor items { chunkIndex } } } }',
      { id: up.body.data.uploadDocument.id },
      auth,
    );
    const passages = read.body.data.document.passages;
    expect(passages.total).toBe(up.body.data.uploadDocument.chunkCount);
    expect(passages.items.map((p: any) => p.chunkIndex)).toEqual(Array.from({ length: passages.total }, (_, i) => i));
  });

  it('serves the token REST paths on the token server and not on the gateway', async () => {
    const health = await fetch(`${token.url}/auth/api/v1/healthz`);
    expect(await health.json()).toEqual({ msg: 'ok' });
    const none = await fetch(`${gateway.url}/auth/api/v1/healthz`);
    expect(none.status).toBe(404);
  });
});
