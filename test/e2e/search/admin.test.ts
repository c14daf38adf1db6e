import { PLATFORM_ADMIN_ROLE, REALM_ADMIN_ROLE } from '../../../core/shared/admin/roles';
import type { TokenCore } from '../../../core/token';
import { searchFixture, type SearchFixture } from './fixture';

const ADMIN = '/admin/api/v1';

/**
 * Tenants' documents in the admin API, REST and GraphQL, over real HTTP: a platform administrator
 * sees every tenant; a realm administrator only its own (its realm's id and its token's tenant),
 * another tenant answering 404 by every route; a plain caller gets 403; a reindex re-embeds one
 * tenant's passages, is audited, and searches find the documents afterwards.
 */
describe("tenants' documents in the admin API", () => {
  let f: SearchFixture;
  let realm: string;
  let platform: string;
  let realmAdmin: string;

  beforeAll(async () => {
    f = await searchFixture();
    realm = f.platform.bootstrap!.values.realm;
    const token = f.platform.instances.token as unknown as TokenCore;
    const bearerOf = async (clientId: string, roles: string[], tenantId?: string) => {
      const c = await token.admin.createClient({ realm, clientId, roles, tenantId });
      const res = await fetch(`${f.url}/auth/api/v1/oauth/connect/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ client_id: clientId, client_secret: c.client_secret, realm }),
      });
      return `Bearer ${((await res.json()) as { access_token: string }).access_token}`;
    };
    platform = await bearerOf('docs-platform-admin', [PLATFORM_ADMIN_ROLE]);
    realmAdmin = await bearerOf('docs-realm-admin', [REALM_ADMIN_ROLE], 'tenant-a');
    for (const [title, content, auth] of [
      ['Volcanoes', 'Lava flows from volcanoes in Iceland. Basalt cools into columns.', f.a],
      ['Geysers', 'Geysers in Iceland erupt with hot water.', f.a],
      ['Tea', 'Green tea is brewed with hot water.', f.b],
    ] as const) {
      const r = await f.call('POST', '/cl/search/api/v2/objects', {
        auth,
        body: { title, content, tags: ['t'], repos: [`repo-${title}`] },
      });
      expect(r.status).toBe(201);
    }
  }, 60_000);
  afterAll(() => f.stop());

  const gql = async (query: string, auth: string) => {
    const res = await fetch(`${f.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: auth },
      body: JSON.stringify({ query }),
    });
    return (await res.json()) as { data?: any; errors?: { extensions?: { code?: string } }[] };
  };

  it('gives a platform administrator every tenant with its counts, paged and sorted', async () => {
    const r = await f.call('GET', `${ADMIN}/documents`, { auth: platform });
    expect(r.status).toBe(200);
    const byTenant = Object.fromEntries((r.body.items as any[]).map((t) => [t.tenant_id, t]));
    expect(byTenant['tenant-a']).toMatchObject({ documents: 2, private_documents: 0, deleted_documents: 0, repos: 2, folders: 0 });
    expect(byTenant['tenant-a'].passages).toBeGreaterThanOrEqual(2);
    expect(byTenant['tenant-a'].bytes).toBeGreaterThan(0);
    expect(Date.parse(byTenant['tenant-a'].last_updated_at)).not.toBeNaN();
    expect(byTenant['tenant-b']).toMatchObject({ documents: 1, repos: 1 });
    expect(r.body.total).toBe(r.body.items.length);

    const first = await f.call('GET', `${ADMIN}/documents?limit=1&sort=-documents`, { auth: platform });
    expect(first.body.items.map((t: any) => t.tenant_id)).toEqual(['tenant-a']);
    const next = await f.call('GET', `${ADMIN}/documents?limit=1&sort=-documents&cursor=${first.body.next_cursor}`, { auth: platform });
    expect(next.body.items.map((t: any) => t.tenant_id)).toEqual(['tenant-b']);
    expect((await f.call('GET', `${ADMIN}/documents?q=NT-B`, { auth: platform })).body.items.map((t: any) => t.tenant_id)).toEqual([
      'tenant-b',
    ]);
  });

  it('counts a deleted document apart', async () => {
    const made = await f.call('POST', '/cl/search/api/v2/objects', { auth: f.b, body: { title: 'Gone', content: 'Soon deleted.' } });
    expect((await f.call('DELETE', `/cl/search/api/v2/objects/${made.body.object_id}`, { auth: f.b })).status).toBeLessThan(300);
    const r = await f.call('GET', `${ADMIN}/tenants/tenant-b/documents`, { auth: platform });
    expect(r.body).toMatchObject({ tenant_id: 'tenant-b', documents: 1, deleted_documents: 1 });
  });

  it("gives a realm administrator its own tenants only, and 404 for another's by every route", async () => {
    const list = await f.call('GET', `${ADMIN}/documents`, { auth: realmAdmin });
    expect(list.status).toBe(200);
    expect(list.body.items.map((t: any) => t.tenant_id).sort()).toEqual([realm, 'tenant-a'].sort());
    // Its realm's own tenant holds nothing: listed with zeros.
    expect(list.body.items.find((t: any) => t.tenant_id === realm)).toMatchObject({ documents: 0, passages: 0, last_updated_at: null });
    expect((await f.call('GET', `${ADMIN}/tenants/tenant-a/documents`, { auth: realmAdmin })).body).toMatchObject({ documents: 2 });
    for (const [method, path] of [
      ['GET', `${ADMIN}/tenants/tenant-b/documents`],
      ['POST', `${ADMIN}/tenants/tenant-b/documents/reindex`],
    ])
      expect((await f.call(method, path, { auth: realmAdmin })).status).toBe(404);
    const g = await gql('{ adminTenantDocuments(tenant: "tenant-b") { documents } }', realmAdmin);
    expect(g.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    const m = await gql('mutation { adminReindexTenant(tenant: "tenant-b") { passages } }', realmAdmin);
    expect(m.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  });

  it('refuses a caller without an administrator role (403), by REST and GraphQL', async () => {
    for (const [method, path] of [
      ['GET', `${ADMIN}/documents`],
      ['GET', `${ADMIN}/tenants/tenant-a/documents`],
      ['POST', `${ADMIN}/tenants/tenant-a/documents/reindex`],
    ])
      expect((await f.call(method, path, { auth: f.a })).status).toBe(403);
    expect((await f.call('GET', `${ADMIN}/documents`, { auth: '' })).status).toBe(401);
    const g = await gql('{ adminDocuments { total } }', f.a);
    expect(g.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  });

  it('refuses bad input with 4xx, never 500', async () => {
    expect((await f.call('GET', `${ADMIN}/documents?limit=0`, { auth: platform })).status).toBe(422);
    expect((await f.call('GET', `${ADMIN}/documents?limit=201`, { auth: platform })).status).toBe(422);
    expect((await f.call('GET', `${ADMIN}/documents?sort=secret`, { auth: platform })).status).toBe(400);
    expect((await f.call('GET', `${ADMIN}/documents?cursor=forged`, { auth: platform })).status).toBe(400);
    expect((await f.call('GET', `${ADMIN}/tenants/${'x'.repeat(200)}/documents`, { auth: platform })).status).toBe(422);
  });

  it("re-embeds a tenant's passages, audited, and searches find its documents afterwards", async () => {
    const before = (await f.call('GET', `${ADMIN}/tenants/tenant-a/documents`, { auth: realmAdmin })).body;
    const r = await f.call('POST', `${ADMIN}/tenants/tenant-a/documents/reindex`, { auth: realmAdmin });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ tenant_id: 'tenant-a', passages: before.passages, embedder: expect.any(String) });
    const found = await f.call('POST', '/cl/search/api/v2/search?query_string=basalt%20columns', { auth: f.a, body: {} });
    expect(found.status).toBe(200);
    expect(JSON.stringify(found.body)).toContain('Volcanoes');

    const events = await f.call('GET', `${ADMIN}/audit-events?type=documents.reindex`, { auth: platform });
    const done = events.body.items.find((e: any) => e.outcome === 'success');
    expect(done).toMatchObject({
      service: 'search',
      tenant: 'tenant-a',
      target: { kind: 'tenant', id: 'tenant-a' },
      details: { reembedded: before.passages, embedder: r.body.embedder },
    });
    expect(done.actor.name).toContain('docs-realm-admin');
    // The realm administrator's refused reindex of another tenant is recorded too.
    expect(events.body.items.find((e: any) => e.outcome === 'failure')).toMatchObject({
      tenant: 'tenant-b',
      reason: "no tenant 'tenant-b'",
    });
  });

  it('answers the same views in GraphQL (camelCase)', async () => {
    const list = await gql(
      '{ adminDocuments(first: 1, sort: "-documents") { items { tenantId documents passages bytes repos lastUpdatedAt } nextCursor total } }',
      platform,
    );
    expect(list.errors).toBeUndefined();
    expect(list.data.adminDocuments.items[0]).toMatchObject({ tenantId: 'tenant-a', documents: 2, repos: 2 });
    expect(list.data.adminDocuments.nextCursor).toEqual(expect.any(String));
    const rest = (await f.call('GET', `${ADMIN}/tenants/tenant-a/documents`, { auth: platform })).body;
    const one = await gql(
      '{ adminTenantDocuments(tenant: "tenant-a") { tenantId documents privateDocuments deletedDocuments passages bytes repos folders } }',
      platform,
    );
    expect(one.data.adminTenantDocuments).toEqual({
      tenantId: rest.tenant_id,
      documents: rest.documents,
      privateDocuments: rest.private_documents,
      deletedDocuments: rest.deleted_documents,
      passages: rest.passages,
      bytes: rest.bytes,
      repos: rest.repos,
      folders: rest.folders,
    });
    const m = await gql('mutation { adminReindexTenant(tenant: "tenant-b") { tenantId passages embedder } }', platform);
    expect(m.errors).toBeUndefined();
    expect(m.data.adminReindexTenant).toMatchObject({ tenantId: 'tenant-b' });
  });
});
