import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_CATALOG } from '../../../core/models/catalog/catalog';
import { REALM_ADMIN_ROLE } from '../../../core/shared/admin/roles';
import type { TokenCore } from '../../../core/token';
import { startFakeOpenAi, type FakeOpenAi } from '../../shared/fakes/openai-upstream';
import { ROOT, startInTemp, type Started } from '../shared/server';

/**
 * The platform's view of itself over /graphql (`platformStatus`, docs/graphql.md): a started
 * platform's version, its four services healthy and ready, itself as the one replica, an upstream
 * failure among its recent errors without secrets; who may read what; and a gateway in front of a
 * service that never answers, which says so instead of hanging.
 */
jest.setTimeout(120_000);

const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const UPSTREAM_KEY = 'overview-upstream-credential-0123456789';
const STATUS = `query Overview {
  platformStatus {
    version startedAt
    services { name title location url healthy health ready reason }
    replicas { id host pid worker version startedAt lastSeenAt live serves current }
    recentErrors(first: 50) { total items { at service where code message requestId replica host pid worker } }
  }
}`;

async function login(p: Started, realm: string, username: string, password: string): Promise<string> {
  const res = await fetch(`${p.url}/auth/api/v1/oauth/connect/user/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ realm, username, password }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { access_token: string }).access_token;
}

const graphql = async (url: string, token: string | null, query: string, headers: Record<string, string> = {}) => {
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers, ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ query }),
  });
  return (await res.json()) as { data?: any; errors?: { message: string; path?: string[]; extensions: { code: string } }[] };
};

describe('the platform overview over /graphql', () => {
  let p: Started;
  let upstream: FakeOpenAi;
  let boot: Record<string, string>;
  let admin: string;
  let realmAdmin: string;
  let plain: string;

  beforeAll(async () => {
    upstream = await startFakeOpenAi();
    process.env.OVERVIEW_UPSTREAM_KEY = UPSTREAM_KEY;
    const file = join(tmpdir(), `catalog-overview-${process.pid}-${Date.now()}.json`);
    const model = {
      id: 'failing-chat',
      group: 'A',
      kind: 'chat',
      contextLength: 8192,
      upstream: { provider: 'openai-compatible', baseUrl: `${upstream.url}/v1`, model: 'm', credentialEnv: 'OVERVIEW_UPSTREAM_KEY' },
    };
    writeFileSync(file, JSON.stringify({ models: [...DEFAULT_CATALOG.models, model] }));
    p = await startInTemp('all', { MODELS_CATALOG_FILE: file }).finally(() => rmSync(file, { force: true }));
    boot = p.bootstrap!.values;
    const token = p.instances.token as TokenCore;
    const other = await token.admin.createRealm({ name: 'overview-other' });
    await token.admin.createUser({ realm: other.id, username: 'ra', password: 'realm-admin-pw', roles: [REALM_ADMIN_ROLE] });
    [admin, realmAdmin, plain] = await Promise.all([
      login(p, boot.realm, boot.admin_username, boot.admin_password),
      login(p, other.id, 'ra', 'realm-admin-pw'),
      login(p, boot.realm, boot.username, boot.password),
    ]);
  }, 90_000);
  afterAll(async () => {
    await p?.stop();
    await upstream?.close();
    delete process.env.OVERVIEW_UPSTREAM_KEY;
  });

  it('shows a platform administrator its version, four services healthy and ready in process, and itself as the one live replica', async () => {
    const { data, errors } = await graphql(p.url, admin, STATUS);
    expect(errors).toBeUndefined();
    const s = data.platformStatus;
    expect(s.version).toBe(VERSION);
    expect(Date.parse(s.startedAt)).toBeLessThanOrEqual(Date.now());
    expect(s.services).toEqual(
      ['token', 'search', 'models', 'chat'].map((name) => ({
        name,
        title: expect.any(String),
        location: 'IN_PROCESS',
        url: null,
        healthy: true,
        health: 'ok',
        ready: true,
        reason: null,
      })),
    );
    expect(s.replicas).toEqual([
      expect.objectContaining({
        pid: process.pid,
        worker: 0,
        version: VERSION,
        startedAt: s.startedAt,
        live: true,
        current: true,
        serves: ['token', 'search', 'models', 'chat', 'gateway'],
      }),
    ]);
  });

  it('lists an upstream failure (a 502 over REST, an UPSTREAM_ERROR over GraphQL) among the recent errors, newest first, without secrets', async () => {
    upstream.script(...Array.from({ length: 6 }, () => ({ status: 500, message: `model crashed; api_key=${UPSTREAM_KEY}` })));
    const rest = await fetch(`${p.url}/proxy/api/v1/azure/openai/deployments/failing-chat/chat/completions?api-version=2024-10-21`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'api-key': boot.api_key, 'x-request-id': 'overview-rest-1' },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'Hello' }] }),
    });
    expect(rest.status).toBeGreaterThanOrEqual(500);
    const viaGraph = await graphql(
      p.url,
      null,
      'mutation { chat(input: { model: "failing-chat", messages: [{ role: USER, content: "Hello" }] }) { content } }',
      { 'api-key': boot.api_key, 'x-request-id': 'overview-graph-1' },
    );
    expect(viaGraph.errors?.[0].extensions.code).toBe('UPSTREAM_ERROR');

    const { data, errors } = await graphql(p.url, admin, STATUS);
    expect(errors).toBeUndefined();
    const { total, items } = data.platformStatus.recentErrors;
    const byId = (id: string) => items.find((e: { requestId: string }) => e.requestId === id);
    expect(total).toBeGreaterThanOrEqual(2);
    expect(byId('overview-rest-1')).toMatchObject({
      service: 'models',
      where: 'POST /proxy/api/v1/azure/openai/deployments/:model/chat/completions',
      replica: data.platformStatus.replicas[0].id,
      pid: process.pid,
    });
    expect(byId('overview-graph-1')).toMatchObject({
      code: 'UPSTREAM_ERROR',
      where: expect.stringMatching(/^mutation anonymous \(chat\)$/),
    });
    expect(items.indexOf(byId('overview-graph-1'))).toBeLessThan(items.indexOf(byId('overview-rest-1')));
    const shown = JSON.stringify(items);
    for (const secret of [UPSTREAM_KEY, boot.api_key, admin]) expect(shown).not.toContain(secret);
    expect(shown).not.toMatch(/\n\s+at /);
  });

  it('refuses anyone but an administrator; a realm administrator reads the version and the services only', async () => {
    const refused = await graphql(p.url, plain, '{ platformStatus { version } }');
    expect(refused.errors?.[0].extensions.code).toBe('FORBIDDEN');
    expect(refused.data).toBeNull();
    expect((await graphql(p.url, null, '{ platformStatus { version } }')).errors?.[0].extensions.code).toMatch(/UNAUTHENTICATED|FORBIDDEN/);

    const seen = await graphql(p.url, realmAdmin, '{ platformStatus { version services { name healthy ready url } } }');
    expect(seen.errors).toBeUndefined();
    expect(seen.data.platformStatus.version).toBe(VERSION);
    expect(seen.data.platformStatus.services.map((s: { url: string | null }) => s.url)).toEqual([null, null, null, null]);
    const more = await graphql(p.url, realmAdmin, '{ platformStatus { version replicas { id } recentErrors { total } } }');
    expect(more.errors?.map((e) => [e.path?.join('.'), e.extensions.code])).toEqual([
      ['platformStatus.replicas', 'FORBIDDEN'],
      ['platformStatus.recentErrors', 'FORBIDDEN'],
    ]);
  });

  describe('a gateway in front of the services, one of which never answers', () => {
    let stalled: Server;
    const sockets: Socket[] = [];
    let gateway: Started;

    beforeAll(async () => {
      // Takes connections and never says a word.
      stalled = createServer((socket) => void sockets.push(socket));
      await new Promise<void>((resolve) => stalled.listen(0, '127.0.0.1', resolve));
      const port = (stalled.address() as { port: number }).port;
      gateway = await startInTemp('gateway', {
        AUTH_ISSUER_URL: p.config.PUBLIC_URL,
        SUBGRAPH_TOKEN_URL: `${p.url}/graphql`,
        SUBGRAPH_SEARCH_URL: `http://127.0.0.1:${port}/graphql`,
        SUBGRAPH_MODELS_URL: `${p.url}/graphql`,
        SUBGRAPH_CHAT_URL: `${p.url}/graphql`,
      });
    }, 60_000);
    afterAll(async () => {
      await gateway?.stop();
      sockets.forEach((s) => s.destroy());
      await new Promise((resolve) => stalled?.close(resolve));
    });

    it('answers at once with that service not answering, the others remote, healthy and ready', async () => {
      const { data, errors } = await graphql(
        gateway.url,
        admin,
        '{ platformStatus { services { name location url healthy health ready reason } replicas { serves current } } }',
      );
      expect(errors).toBeUndefined();
      const byName = Object.fromEntries(data.platformStatus.services.map((s: { name: string }) => [s.name, s]));
      const port = (stalled.address() as { port: number }).port;
      expect(byName.search).toEqual({
        name: 'search',
        location: 'REMOTE',
        url: `http://127.0.0.1:${port}`,
        healthy: false,
        health: 'no answer within 2 s',
        ready: false,
        reason: 'no answer within 2 s',
      });
      for (const name of ['token', 'models', 'chat'])
        expect(byName[name]).toMatchObject({ location: 'REMOTE', url: p.url, healthy: true, health: 'ok', ready: true, reason: null });
      expect(data.platformStatus.replicas).toEqual([{ serves: ['gateway'], current: true }]);
    });
  });
});
