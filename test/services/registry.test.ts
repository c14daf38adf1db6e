import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { decodeJwt } from 'jose';
import { configParts } from '../../bin/deps';
import { helpText } from '../../bin/platform';
import { loadConfig } from '../../core/shared/config';
import { openTokenCore } from '../../core/token';
import { sqliteTokenStores } from '../../core/token/sqlite';
import { SERVICES } from '../../services/registry';
import { ROOT, startInTemp, type Started } from '../e2e/shared/server';
import { fastHasher, pooledKeys, testModules } from '../shared/helpers';
import { notesModule } from './notes-module';

describe('a service added to the registry alone is found by every part of the platform', () => {
  const modules = [...testModules(), notesModule];
  let server: Started;
  let reader: string;
  let demo: string;

  beforeAll(async () => {
    server = await startInTemp('all', { NOTES_GREETING: 'hi there' }, modules);
    const boot = server.bootstrap!.values;
    // As `platform client create` would: a client holding the notes service's role.
    const admin = await openTokenCore({
      stores: sqliteTokenStores(join(server.dataDir, 'token.db')),
      publicUrl: server.config.PUBLIC_URL,
      hasher: fastHasher,
      generateKey: pooledKeys,
    });
    const c = await admin.admin.createClient({ realm: boot.realm, clientId: 'reader', roles: ['notes:read'], tenantId: 'acme' });
    await admin.close();
    const token = async (id: string, secret: string) =>
      (
        (await (
          await fetch(`${server.url}/auth/api/v1/oauth/connect/token`, {
            method: 'POST',
            body: new URLSearchParams({ client_id: id, client_secret: secret }),
          })
        ).json()) as { access_token: string }
      ).access_token;
    reader = await token('reader', c.client_secret);
    demo = await token(boot.client_id, boot.client_secret);
  });
  afterAll(() => server?.stop());

  const rest = (path: string, bearer?: string, body?: unknown) =>
    fetch(`${server.url}/notes/api/v1${path}`, {
      method: body ? 'POST' : 'GET',
      headers: { ...(bearer ? { authorization: `Bearer ${bearer}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
  const gql = async (query: string, bearer?: string) =>
    (
      await fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) },
        body: JSON.stringify({ query }),
      })
    ).json() as Promise<{ data?: Record<string, unknown>; errors?: { extensions: { code: string } }[] }>;

  it('issues access tokens whose audience names it', () => {
    expect(decodeJwt(reader).aud).toEqual(expect.arrayContaining(['account', 'notes']));
  });

  it('serves its REST routes with the caller: 401 without a token, 403 without its role, its tenant otherwise', async () => {
    expect((await rest('/notes')).status).toBe(401);
    expect((await rest('/notes', demo)).status).toBe(403);
    expect((await rest('/notes', reader, { text: 'first' })).status).toBe(200);
    expect(await (await rest('/notes', reader)).json()).toEqual(['first']);
    const bad = await rest('/notes', reader, { text: '' });
    expect(bad.status).toBe(422);
  });

  it('describes itself in OpenAPI with its docs page, and in the platform index', async () => {
    const doc = (await (await fetch(`${server.url}/notes/api/v1/openapi.json`)).json()) as {
      info: { title: string };
      paths: Record<string, unknown>;
    };
    expect(doc.info.title).toBe('Notes service');
    expect(Object.keys(doc.paths)).toContain('/notes/api/v1/notes');
    expect((await fetch(`${server.url}/notes/api/v1/docs`)).status).toBe(200);
    const index = (await (await fetch(`${server.url}/`)).json()) as { services: { prefix: string }[] };
    expect(index.services.map((s) => s.prefix)).toEqual([
      '/auth/api/v1',
      '/cl/search/api',
      '/proxy/api/v1',
      '/api',
      '/notes/api/v1',
      '/admin/api/v1',
    ]);
  });

  it('is a subgraph of the federated graph, with its own settings and the same caller rules as REST', async () => {
    expect(await gql('{ greeting realm { name } }')).toEqual({ data: { greeting: 'hi there', realm: { name: 'default' } } });
    expect((await gql('{ notes }')).errors?.[0]?.extensions.code).toBe('UNAUTHENTICATED');
    expect((await gql('{ notes }', demo)).errors?.[0]?.extensions.code).toBe('FORBIDDEN');
    expect((await gql('mutation { addNote(text: "second") }', reader)).data).toEqual({ addNote: 'second' });
    expect((await gql('{ notes viewer { tenantId roles } }', reader)).data).toEqual({
      notes: ['first', 'second'],
      viewer: { tenantId: 'acme', roles: ['notes:read'] },
    });
  });

  it('adds its part to bootstrap.json, its commands to the CLI help, and SUBGRAPH_NOTES_URL to the configuration', () => {
    expect(server.bootstrap!.values).toMatchObject({ notes_greeting_seen: 'yes', client_id: expect.any(String) });
    expect(helpText(modules)).toContain('platform note count');
    expect(helpText(modules)).toContain('serve <token|search|models|chat|notes|gateway>');
    expect(loadConfig({ SUBGRAPH_NOTES_URL: 'http://notes:9000/graphql' }, configParts(modules)).subgraphUrls).toEqual({
      notes: 'http://notes:9000/graphql',
    });
    expect(() => loadConfig({ NOTES_GREETING: '', SUBGRAPH_NOTES_URL: 'nope' }, configParts(modules))).toThrow(/SUBGRAPH_NOTES_URL/);
  });
});

describe('the shared files', () => {
  const SERVICE_NAMES = SERVICES.map((m) => m.name);
  /** A service's own files: its folder in each layer. The registry holds one line per service. */
  const ownFolder = new RegExp(`^(core|edge|rest|subgraphs|clients|services|schema)/(${SERVICE_NAMES.join('|')})/`);
  const names = new RegExp(`from '[./]*(core|rest|subgraphs|clients|services)/(${SERVICE_NAMES.join('|')})(/|')`);
  const files = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [relative(ROOT, path)] : [];
    });

  it("name no service: only a service's own files import it", () => {
    const shared = ['core', 'edge', 'rest', 'subgraphs', 'gateway', 'clients', 'bin', 'services']
      .flatMap((d) => files(join(ROOT, d)))
      .filter((f) => !ownFolder.test(f) && f !== join('services', 'registry.ts'));
    expect(shared.length).toBeGreaterThan(20);
    expect(SERVICE_NAMES).toEqual(['token', 'search', 'models', 'chat']);
    const naming = shared.filter((f) => names.test(readFileSync(join(ROOT, f), 'utf8')));
    expect(naming).toEqual([]);
  });

  it('register every service in one list', () => {
    expect(SERVICES.map((m) => m.name)).toEqual(['token', 'search', 'models', 'chat']);
  });
});

describe('a service running apart from the token service', () => {
  const modules = [...testModules(), notesModule];
  let token: Started;
  let notes: Started;
  let bearer: string;

  beforeAll(async () => {
    token = await startInTemp('token', {}, modules);
    // No token service in this process: keys come from the JWKS of AUTH_ISSUER_URL.
    notes = await startInTemp('notes', { AUTH_ISSUER_URL: token.url }, modules);
    const admin = await openTokenCore({
      stores: sqliteTokenStores(join(token.dataDir, 'token.db')),
      publicUrl: token.config.PUBLIC_URL,
      hasher: fastHasher,
      generateKey: pooledKeys,
    });
    const realm = (await admin.admin.createRealm({ name: 'far' })).id;
    const c = await admin.admin.createClient({ realm, clientId: 'reader', roles: ['notes:read'], tenantId: 'far-tenant' });
    await admin.close();
    const res = await fetch(`${token.url}/auth/api/v1/oauth/connect/token`, {
      method: 'POST',
      body: new URLSearchParams({ realm, client_id: 'reader', client_secret: c.client_secret }),
    });
    bearer = ((await res.json()) as { access_token: string }).access_token;
  });
  afterAll(async () => {
    await notes?.stop();
    await token?.stop();
  });

  it("verifies callers with the issuer's published keys, on REST and on its own subgraph", async () => {
    const add = await fetch(`${notes.url}/notes/api/v1/notes`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'remote' }),
    });
    expect(add.status).toBe(200);
    const gql = await fetch(`${notes.url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ notes }' }),
    });
    expect(await gql.json()).toEqual({ data: { notes: ['remote'] } });
    const forged = `${bearer.slice(0, -4)}AAAA`;
    expect((await fetch(`${notes.url}/notes/api/v1/notes`, { headers: { authorization: `Bearer ${forged}` } })).status).toBe(401);
    // The token service itself serves no notes paths.
    expect((await fetch(`${token.url}/notes/api/v1/notes`, { headers: { authorization: `Bearer ${bearer}` } })).status).toBe(404);
  });
});
