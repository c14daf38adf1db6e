import pino from 'pino';
import { openSearchCore, type SearchCore } from '../../../core/search';
import { createSearchAdminApi, type AdminCtx } from '../../../core/search/admin-api';
import { sqliteSearchStores } from '../../../core/search/sqlite';
import { cliAdmin, type Admin } from '../../../core/shared/admin/access';
import { auditTrail } from '../../../core/shared/admin/audit';
import { memoryAuditStore } from '../../../core/shared/admin/memory-audit';
import type { Caller } from '../../../core/shared/auth/caller';
import { hashingEmbedder, type Embedder } from '../../../core/shared/text/embedder';
import { testClock } from '../../shared/helpers';

/** The search admin API's core (core/search/admin-api.ts) on a real SQLite store: who sees what, and reindex under contention. */
describe('search admin API', () => {
  let core: SearchCore;
  let release: () => void = () => undefined;
  let gate: Promise<void> | undefined;
  const inner = hashingEmbedder();
  // The embedder is a port: this one can be held while a reindex is under way.
  const embedder: Embedder = {
    id: inner.id,
    dimensions: inner.dimensions,
    fusionWeight: inner.fusionWeight,
    sparse: inner.sparse,
    embed: async (texts) => {
      await gate;
      return inner.embed(texts);
    },
  };
  const store = memoryAuditStore();
  const clock = testClock();
  let n = 0;
  const audit = auditTrail({ store, log: pino({ level: 'silent' }), clock, newId: () => `e${++n}` });

  const writer = (tenantId: string) => ({
    caller: {
      realm: 'r',
      subject: 'w',
      tenantId,
      roles: ['search:read', 'search:write'],
      scopes: [],
      clientId: 'c',
      username: 'w',
      sessionId: 's',
      tokenId: 't',
      expiresAt: 0,
      audience: ['search'],
      bearer: 'x',
    } satisfies Caller,
  });
  const as = (admin: Admin): AdminCtx => ({ caller: admin, clientAddress: '192.0.2.9' });
  const platform = as(cliAdmin('ops'));
  const realmAdmin = as({ platform: false, realm: 'r', tenant: 'tenant-a', actor: { kind: 'user', realm: 'r', name: 'ra' } });

  beforeAll(async () => {
    core = openSearchCore({ stores: sqliteSearchStores(':memory:'), embedder, clock });
    await core.service.createObject({ content: 'Glaciers retreat.', title: 'Ice' }, writer('tenant-a'));
    await core.service.createObject({ content: 'Tea is brewed.', title: 'Tea' }, writer('tenant-b'));
  });
  afterAll(() => core.close());
  const api = () => createSearchAdminApi({ store: core.store.admin, admin: core.admin, audit });

  it("lists every tenant for a platform administrator, a realm administrator's own only", async () => {
    expect((await api().listDocuments({}, platform)).items.map((t) => t.tenant_id)).toEqual(['tenant-a', 'tenant-b']);
    expect((await api().listDocuments({}, realmAdmin)).items.map((t) => t.tenant_id)).toEqual(['r', 'tenant-a']);
    await expect(api().tenantDocuments({ tenant: 'tenant-b' }, realmAdmin)).rejects.toMatchObject({ kind: 'not_found' });
    await expect(api().tenantDocuments({ tenant: '' }, platform)).rejects.toMatchObject({ kind: 'bad_request' });
  });

  it('refuses a second reindex of a tenant while one runs (409), and records both', async () => {
    const a = api();
    gate = new Promise((r) => (release = r));
    const first = a.reindexTenant({ tenant: 'tenant-a' }, realmAdmin);
    await expect(a.reindexTenant({ tenant: 'tenant-a' }, realmAdmin)).rejects.toMatchObject({ kind: 'conflict' });
    release();
    gate = undefined;
    expect(await first).toMatchObject({ tenant_id: 'tenant-a', passages: 1, embedder: inner.id });
    expect(await a.reindexTenant({ tenant: 'tenant-a' }, realmAdmin)).toMatchObject({ passages: 1 });
    const events = store.events.filter((e) => e.type === 'documents.reindex');
    expect(events.map((e) => e.outcome)).toEqual(['failure', 'success', 'success']);
    expect(events[0]).toMatchObject({
      tenant: 'tenant-a',
      address: '192.0.2.9',
      actor: { name: 'ra' },
      reason: "tenant 'tenant-a' is being reindexed already",
    });
  });
});
