import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getIntrospectionQuery } from 'graphql';
import pino from 'pino';
import request from 'supertest';
import { graphiqlRouter } from '../../gateway/graphiql';
import { createGateway, type Gateway } from '../../gateway/server';
import { readSupergraph } from '../../gateway/supergraph';
import { createRestApp } from '../../rest/shared/app';
import type { GraphqlLimits } from '../../edge/graphql/limits';
import { tokenFixture, tokenSubgraph, type TokenFixture } from '../shared/helpers';

const log = pino({ level: 'silent' });

describe('the gateway refuses abusive or broken requests with 4xx, never stalling', () => {
  let fx: TokenFixture;
  const gateways: Gateway[] = [];
  let app: ReturnType<typeof createRestApp>;
  let server: Server;
  let base: string;

  const platform = async (limits?: Partial<GraphqlLimits>) => {
    const gateway = await createGateway({
      supergraphSdl: readSupergraph(),
      targets: { token: { schema: tokenSubgraph(fx).schema } },
      log,
      limits,
    });
    gateways.push(gateway);
    return createRestApp([], {
      log,
      extra: [
        { path: '/', router: gateway.router },
        { path: '/', router: graphiqlRouter('/graphql') },
      ],
    });
  };

  beforeAll(async () => {
    fx = await tokenFixture();
    app = await platform();
    server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    for (const gateway of gateways) await gateway.stop();
    await fx.core.close();
  });

  const gql = (body: unknown, to = app) =>
    request(to)
      .post('/graphql')
      .set('content-type', 'application/json')
      .send(body as object);
  const refused = (res: { status: number; body: any }, code: string, message: RegExp) => {
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatchObject({ message: expect.stringMatching(message), extensions: { code } });
  };

  it('keeps answering /healthz while it refuses a huge aliased document and a fragment bomb', async () => {
    const aliases = `{ ${Array.from({ length: 25_000 }, (_, i) => `a${i}: realm { id name issuer }`).join(' ')} }`;
    expect(aliases.length).toBeGreaterThan(800_000);
    const levels = Array.from(
      { length: 50 },
      (_, i) => `fragment F${i} on Query { ...F${i + 1} ...G${i + 1} } fragment G${i} on Query { ...F${i + 1} ...G${i + 1} }`,
    );
    const bomb = `{ ...F0 } ${levels.join(' ')} fragment F50 on Query { realm { id } } fragment G50 on Query { realm { name } }`;
    const post = (query: string) =>
      fetch(`${base}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) }).then(
        async (r) => ({ status: r.status, body: (await r.json()) as any }),
      );
    const [huge, exploded, health] = await Promise.all([post(aliases), post(bomb), fetch(`${base}/healthz`)]);
    refused(huge, 'QUERY_TOO_LARGE', /more than 5000 tokens/);
    refused(exploded, 'QUERY_TOO_COSTLY', /the limit is 2000/);
    expect(health.status).toBe(200);
  });

  it('applies the limits it is given, and lets Sandbox and GraphiQL introspect', async () => {
    const strict = await platform({ maxAliases: 1 });
    refused(await gql({ query: '{ a: realm { id } b: realm { id } }' }, strict), 'TOO_MANY_ALIASES', /2 aliases; the limit is 1/);
    const ok = await gql({ query: '{ a: realm { name } }' }, strict);
    expect(ok.body).toEqual({ data: { a: { name: 'main' } } });
    const schema = await gql({ query: getIntrospectionQuery() });
    expect(schema.status).toBe(200);
    expect(schema.body.data.__schema.mutationType.name).toBe('Mutation');
  });

  it('answers an operationName that names no operation with 400', async () => {
    refused(
      await gql({ query: 'query A { realm { id } }', operationName: 'B' }),
      'OPERATION_RESOLUTION_FAILURE',
      /Unknown operation named "B"/,
    );
  });

  it("answers bad persisted-query extensions with 400 and Apollo's own message", async () => {
    const query = '{ realm { id } }';
    refused(
      await gql({ query, extensions: { persistedQuery: { version: 2, sha256Hash: 'abc' } } }),
      'BAD_REQUEST',
      /^Unsupported persisted query version$/,
    );
    refused(
      await gql({ query, extensions: { persistedQuery: { version: 1, sha256Hash: 'abc' } } }),
      'BAD_REQUEST',
      /^provided sha does not match query$/,
    );
    const sha256Hash = createHash('sha256').update(query).digest('hex');
    const registered = await gql({ query, extensions: { persistedQuery: { version: 1, sha256Hash } } });
    expect(registered.body).toEqual({ data: { realm: { id: fx.realm } } });
  });

  it('refuses a subscription sent as plain JSON, naming the transports that stream it', async () => {
    refused(
      await gql({ query: 'subscription { realm { id } }' }),
      'SUBSCRIPTIONS_NOT_SUPPORTED',
      /graphql-ws.*text\/event-stream.*multipart\/mixed/,
    );
  });

  it('answers 404 for GraphiQL assets it does not have, whatever their name', async () => {
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'nope.js']) {
      const res = await request(app).get(`/_assets/graphiql/${name}`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ detail: 'No such GraphiQL asset' });
    }
    const css = await request(app).get('/_assets/graphiql/graphiql.min.css');
    expect(css.status).toBe(200);
  });

  it('answers 405 with Allow for a POST to /graphiql', async () => {
    const res = await request(app).post('/graphiql').send({});
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD');
    expect(res.body).toEqual({ detail: 'Method Not Allowed' });
    expect((await request(app).get('/graphiql')).status).toBe(200);
  });

  it('serves Sandbox with an offline fallback that points to /graphiql', async () => {
    const page = await request(app).get('/graphql').set('accept', 'text/html');
    expect(page.status).toBe(200);
    expect(page.text).toMatch(/embeddable-sandbox\.cdn\.apollographql\.com/);
    expect(page.text).toMatch(/Apollo Sandbox could not load/);
    expect(page.text).toMatch(/needs internet access/);
    expect(page.text).toMatch(/<a href="\/graphiql">/);
    // The fallback script runs only if it carries the nonce the page's Content-Security-Policy allows.
    const csp = /script-src 'self' 'nonce-([0-9a-f]+)'/.exec(page.text);
    expect(csp).not.toBeNull();
    expect(page.text).toContain(`<script nonce="${csp![1]}">\n  if (typeof window.EmbeddedSandbox !== 'function')`);
  });
});
