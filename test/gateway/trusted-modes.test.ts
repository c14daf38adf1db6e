import { createHash } from 'node:crypto';
import { Writable } from 'node:stream';
import pino from 'pino';
import request from 'supertest';
import { createGateway, type Gateway } from '../../gateway/server';
import { readSupergraph } from '../../gateway/supergraph';
import { trustedDocuments, type TrustedMode } from '../../gateway/trusted/enforce';
import { sha256Hex } from '../../gateway/trusted/manifest';
import { trustedRegistry, type TrustedRegistry } from '../../gateway/trusted/registry';
import { sqliteTrustedStore, type TrustedStore } from '../../gateway/trusted/store';
import { createRestApp } from '../../rest/shared/app';
import { noMetrics, type Metrics } from '../../core/shared/telemetry/metrics';
import { tokenFixture, tokenSubgraph, type TokenFixture } from '../shared/helpers';

/**
 * The gateway with each GRAPHQL_TRUSTED_DOCUMENTS mode other than refuse, over HTTP: listed ids
 * resolve in every mode; off runs anything as before (APQ included); log runs an unlisted operation,
 * counts it each time and logs its hash once.
 */
const LISTED = 'query Listed { realm { id } }';
const UNLISTED = 'query Unlisted { realm { id name } }';
const hex = (s: string) => createHash('sha256').update(s).digest('hex');

let fx: TokenFixture;
let store: TrustedStore;
let registry: TrustedRegistry;
const gateways: Gateway[] = [];
beforeAll(async () => {
  fx = await tokenFixture();
  store = sqliteTrustedStore(':memory:');
  await store.replace(
    'web',
    'graphql-codegen-persisted-documents',
    [{ id: 'web-listed', body: LISTED, sha256: sha256Hex(LISTED), type: 'query' }],
    1,
  );
  registry = await trustedRegistry(store, { log: pino({ level: 'silent' }) });
});
afterAll(async () => {
  for (const g of gateways) await g.stop();
  registry.close();
  await store.close();
  await fx.core.close();
});

async function graph(mode: TrustedMode) {
  const lines: string[] = [];
  const log = pino({ level: 'warn' }, new Writable({ write: (chunk, _e, done) => done(void lines.push(String(chunk))) }));
  const counted: Record<string, number> = {};
  const metrics: Metrics = {
    ...noMetrics,
    counter: (spec) => ({
      inc: (labels) => void (counted[`${spec.name} ${String(labels.mode)}`] = (counted[`${spec.name} ${String(labels.mode)}`] ?? 0) + 1),
    }),
  };
  const gateway = await createGateway({
    supergraphSdl: readSupergraph(),
    targets: { token: { schema: tokenSubgraph(fx).schema } },
    log,
    trusted: trustedDocuments(registry, { mode, log, metrics }),
  });
  gateways.push(gateway);
  const app = createRestApp([], { log: pino({ level: 'silent' }), extra: [{ path: '/', router: gateway.router }] });
  const post = (body: object) => request(app).post('/graphql').set('content-type', 'application/json').send(body);
  const get = (query: Record<string, string>) => request(app).get('/graphql').set('apollo-require-preflight', 'true').query(query);
  return { post, get, lines, counted };
}

describe.each(['off', 'log'] as const)('mode %s', (mode) => {
  it('resolves a listed documentId, POST and GET', async () => {
    const g = await graph(mode);
    const data = { data: { realm: { id: fx.realm } } };
    expect((await g.post({ documentId: 'web-listed' })).body).toEqual(data);
    expect((await g.get({ documentId: `sha256:${hex(LISTED)}` })).body).toEqual(data);
    const unknown = await g.post({ documentId: 'nope' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0]).toMatchObject({ extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } });
  });

  it('runs an unlisted operation, and registers and runs an unlisted Apollo hash (APQ)', async () => {
    const g = await graph(mode);
    const data = { data: { realm: { id: fx.realm, name: expect.any(String) } } };
    expect((await g.post({ query: UNLISTED })).body).toEqual(data);
    const pq = { persistedQuery: { version: 1, sha256Hash: hex(UNLISTED) } };
    expect((await g.post({ query: UNLISTED, extensions: pq })).body).toEqual(data);
    expect((await g.post({ extensions: pq })).body).toEqual(data);
  });
});

describe('mode log', () => {
  it('counts every unlisted operation and logs its hash once; listed ones are neither', async () => {
    const g = await graph('log');
    for (let i = 0; i < 3; i++) expect((await g.post({ query: UNLISTED })).status).toBe(200);
    expect((await g.post({ query: LISTED })).status).toBe(200);
    expect((await g.post({ documentId: 'web-listed' })).status).toBe(200);
    expect(g.counted).toEqual({ 'platform_graphql_untrusted_operations_total log': 3 });
    const logged = g.lines.map((l) => JSON.parse(l)).filter((l) => l.msg.includes('no trusted document list holds'));
    expect(logged).toEqual([expect.objectContaining({ sha256: hex(UNLISTED), operationName: 'Unlisted', level: 40 })]);
  });
});

describe('mode off', () => {
  it('counts and logs nothing', async () => {
    const g = await graph('off');
    expect((await g.post({ query: UNLISTED })).status).toBe(200);
    expect(g.counted).toEqual({});
    expect(g.lines).toEqual([]);
  });
});
