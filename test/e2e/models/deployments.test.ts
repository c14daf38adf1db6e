import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ModelsCore } from '../../../core/models';
import { PLATFORM_ADMIN_ROLE, REALM_ADMIN_ROLE } from '../../../core/shared/admin/roles';
import { startInTemp, type Started } from '../shared/server';
import { ADMIN, bearerOf, call } from './admin-catalog-fixture';

/** A model with two deployments (the offline provider behind both; one named by its credential variable) and a plain one. */
const CATALOG = {
  models: [
    {
      id: 'two-way-chat',
      group: 'A',
      contextLength: 4096,
      deployments: [
        { id: 'east', upstream: { provider: 'local', region: 'eastus' }, weight: 3, rpm: 600 },
        { id: 'west', upstream: { provider: 'local', region: 'westus', credentialEnv: 'WEST_CHAT_KEY' } },
      ],
    },
    { id: 'one-way-chat', group: 'A', upstream: { provider: 'local' }, contextLength: 4096 },
  ],
};

const QUERY = `query($id: ID!) { adminModel(id: $id) { id deployments {
  deployment provider region weight rpm credentialEnv state coolingUntil recentFailures inFlight latencyMs lastFailure { at what } } } }`;

/**
 * A catalog model's deployments and their state in the admin API, over real HTTP and through the
 * gateway's graph: both healthy at first; one in cooldown (started through the models instance's
 * health port, as the router does on failures: the router lane drives it from real vendor answers)
 * shows as cooling until when, with its last failure; who may read; an unknown model is 404.
 */
describe("a catalog model's deployments in the admin API and the graph", () => {
  let p: Started;
  let dir: string;
  let platform: string;
  let realmAdmin: string;
  let plain: string;
  const gql = async (query: string, variables: Record<string, unknown>, auth: string) =>
    (await call(p.url, 'POST', '/graphql', { auth, body: { query, variables } })).body as { data?: any; errors?: any[] };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'deployments-'));
    writeFileSync(join(dir, 'catalog.json'), JSON.stringify(CATALOG));
    p = await startInTemp('all', { MODELS_CATALOG_FILE: join(dir, 'catalog.json'), WEST_CHAT_KEY: 'sk-never-shown' });
    const realm = p.bootstrap!.values.realm;
    platform = await bearerOf(p, realm, 'deployments-platform-admin', [PLATFORM_ADMIN_ROLE]);
    realmAdmin = await bearerOf(p, realm, 'deployments-realm-admin', [REALM_ADMIN_ROLE]);
    plain = await bearerOf(p, realm, 'deployments-plain', []);
  }, 60_000);
  afterAll(async () => {
    await p?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("lists each deployment in the model's view, by its credential variable's name only", async () => {
    const r = await call(p.url, 'GET', `${ADMIN}/models/two-way-chat`, { auth: platform });
    expect(r.status).toBe(200);
    expect(r.body.deployments).toEqual([
      {
        id: 'east',
        provider: 'local',
        base_url: null,
        model: null,
        region: 'eastus',
        credential_env: null,
        api_version: null,
        weight: 3,
        rpm: 600,
      },
      {
        id: 'west',
        provider: 'local',
        base_url: null,
        model: null,
        region: 'westus',
        credential_env: 'WEST_CHAT_KEY',
        api_version: null,
        weight: 1,
        rpm: null,
      },
    ]);
    expect(r.text).not.toContain('sk-never-shown');
    const one = await call(p.url, 'GET', `${ADMIN}/models/one-way-chat`, { auth: platform });
    expect(one.body.deployments.map((d: any) => d.id)).toEqual(['default']);
  });

  it('shows every deployment healthy at first, to a platform and a realm administrator', async () => {
    for (const auth of [platform, realmAdmin]) {
      const r = await call(p.url, 'GET', `${ADMIN}/models/two-way-chat/deployments`, { auth });
      expect(r.status).toBe(200);
      expect(r.body.items).toEqual([
        {
          deployment: 'east',
          provider: 'local',
          region: 'eastus',
          weight: 3,
          state: 'healthy',
          cooling_until: null,
          recent_failures: 0,
          in_flight: 0,
          latency_ms: null,
          last_failure: null,
        },
        expect.objectContaining({ deployment: 'west', state: 'healthy', region: 'westus', weight: 1 }),
      ]);
    }
  });

  it('shows a deployment in cooldown, until when, and its last failure, in REST and the graph', async () => {
    const core = p.instances.models as unknown as ModelsCore;
    const now = Date.now();
    const policy = { failures: 2, windowSeconds: 60, seconds: 120 };
    core.health.failed({ model: 'two-way-chat', deployment: 'west' }, policy, now, '503');
    core.health.failed({ model: 'two-way-chat', deployment: 'west' }, policy, now, 'timeout');
    const until = new Date(now + 120_000).toISOString();

    const r = await call(p.url, 'GET', `${ADMIN}/models/two-way-chat/deployments`, { auth: realmAdmin });
    expect(r.body.items[1]).toMatchObject({
      deployment: 'west',
      state: 'cooling',
      cooling_until: until,
      recent_failures: 0,
      last_failure: { at: new Date(now).toISOString(), what: 'timeout' },
    });
    expect(r.body.items[0].state).toBe('healthy');

    const g = await gql(QUERY, { id: 'two-way-chat' }, platform);
    expect(g.errors).toBeUndefined();
    expect(g.data.adminModel.deployments).toEqual([
      expect.objectContaining({ deployment: 'east', state: 'healthy', coolingUntil: null, weight: 3, rpm: 600, region: 'eastus' }),
      {
        deployment: 'west',
        provider: 'local',
        region: 'westus',
        weight: 1,
        rpm: null,
        credentialEnv: 'WEST_CHAT_KEY',
        state: 'cooling',
        coolingUntil: until,
        recentFailures: 0,
        inFlight: 0,
        latencyMs: null,
        lastFailure: { at: new Date(now).toISOString(), what: 'timeout' },
      },
    ]);
  });

  it('refuses a caller that is not an administrator (403, FORBIDDEN), and answers 404 for an unknown model', async () => {
    expect((await call(p.url, 'GET', `${ADMIN}/models/two-way-chat/deployments`, { auth: plain })).status).toBe(403);
    expect((await call(p.url, 'GET', `${ADMIN}/models/two-way-chat/deployments`)).status).toBe(401);
    expect((await call(p.url, 'GET', `${ADMIN}/models/no-such-model/deployments`, { auth: platform })).status).toBe(404);
    const g = await gql(QUERY, { id: 'two-way-chat' }, plain);
    expect(g.errors?.[0].extensions.code).toBe('FORBIDDEN');
    expect(g.data?.adminModel ?? null).toBeNull();
  });
});
