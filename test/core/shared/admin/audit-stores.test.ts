import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AuditEvent, AuditQuery, AuditStore } from '../../../../core/shared/admin/audit';
import { memoryAuditStore } from '../../../../core/shared/admin/memory-audit';
import { pgAuditStore } from '../../../../core/shared/admin/postgres-audit';
import { openSqliteAudit } from '../../../../core/shared/admin/sqlite-audit';
import { openPool } from '../../../../core/shared/postgres';
import { describePg, freshDatabase } from '../../../shared/postgres';

/**
 * The audit stores' contract (core/shared/admin/audit.ts), the same cases for each: append, the
 * query's filters (time, actor, realm, tenant, type and type prefix, outcome), cursor pages newest
 * first and oldest first, and the retention's prune.
 */
const T0 = Date.UTC(2025, 0, 1);
const MIN = 60_000;

const event = (i: number, over: Partial<AuditEvent> = {}): AuditEvent => ({
  id: `e-${String(i).padStart(3, '0')}`,
  time: T0 + i * MIN,
  type: i % 3 === 0 ? 'login.failure' : i % 3 === 1 ? 'client.create' : 'client.update',
  outcome: i % 3 === 0 ? 'failure' : 'success',
  actor: { kind: 'user', realm: i % 2 ? 'r1' : 'r2', id: `sub-${i % 4}`, name: `admin-${i % 4}` },
  realm: i % 2 ? 'r1' : 'r2',
  tenant: i % 5 === 0 ? 't5' : undefined,
  target: { kind: 'client', id: `c-${i}` },
  address: '203.0.113.7',
  service: 'token',
  details: { n: i },
  ...over,
});

const EVENTS = Array.from({ length: 30 }, (_, i) => event(i));

/** What the store should answer, worked out on the list itself. */
function expected(q: Omit<AuditQuery, 'limit' | 'cursor'>): string[] {
  return (
    EVENTS.filter(
      (e) =>
        (q.from === undefined || e.time >= q.from) &&
        (q.to === undefined || e.time < q.to) &&
        (q.actor === undefined || e.actor.name === q.actor || e.actor.id === q.actor) &&
        (q.realm === undefined || e.realm === q.realm) &&
        (q.tenant === undefined || e.tenant === q.tenant) &&
        (q.outcome === undefined || e.outcome === q.outcome) &&
        (q.type === undefined || (q.type.endsWith('.') ? e.type.startsWith(q.type) : e.type === q.type)),
    )
      .map((e) => e.id)
      // Ids follow the events' times here.
      .sort((a, b) => (q.order === 'asc' ? (a < b ? -1 : 1) : a < b ? 1 : -1))
  );
}

/** Every page of a query, followed by its cursors. */
async function allPages(store: AuditStore, q: Omit<AuditQuery, 'cursor'>): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await store.query({ ...q, cursor });
    expect(page.events.length).toBeLessThanOrEqual(q.limit);
    ids.push(...page.events.map((e) => e.id));
    cursor = page.nextCursor ?? undefined;
    pages++;
  } while (cursor);
  return { ids, pages };
}

function auditStoreContract(name: string, open: () => Promise<{ store: AuditStore; close(): Promise<void> }>, d: jest.Describe = describe) {
  d(`audit store contract: ${name}`, () => {
    let store: AuditStore;
    let close: () => Promise<void>;
    beforeEach(async () => {
      ({ store, close } = await open());
      // Out of order, as replicas append them.
      for (const e of [...EVENTS].reverse()) await store.append(e);
    });
    afterEach(() => close());

    it('reads back what was appended, whole', async () => {
      const page = await store.query({ limit: 200, type: 'client.create' });
      expect(page.events[0]).toEqual(EVENTS.filter((e) => e.type === 'client.create').at(-1));
    });

    it.each<[string, Omit<AuditQuery, 'limit' | 'cursor'>]>([
      ['nothing', {}],
      ['a time range (from inclusive, to exclusive)', { from: T0 + 5 * MIN, to: T0 + 12 * MIN }],
      ['an actor by name', { actor: 'admin-1' }],
      ['an actor by id', { actor: 'sub-2' }],
      ['a realm', { realm: 'r1' }],
      ['a tenant', { tenant: 't5' }],
      ['an exact type', { type: 'client.update' }],
      ['a type prefix', { type: 'client.' }],
      ['a prefix that is no whole word', { type: 'clien.' }],
      ['an outcome', { outcome: 'failure' }],
      ['all of them', { realm: 'r1', type: 'client.', outcome: 'success', from: T0 + 3 * MIN }],
      ['oldest first', { order: 'asc', realm: 'r2' }],
    ])('filters by %s, in pages that give every event once', async (_, q) => {
      const want = expected(q);
      const { ids, pages } = await allPages(store, { ...q, limit: 4 });
      expect(ids).toEqual(want);
      expect(pages).toBe(Math.max(1, Math.ceil(want.length / 4)));
    });

    it('orders events of the same millisecond by id, so a page boundary between them loses none', async () => {
      for (const id of ['same-b', 'same-a', 'same-c']) await store.append(event(100, { id, time: T0 + 100 * MIN }));
      const desc = await allPages(store, { limit: 1, from: T0 + 100 * MIN });
      expect(desc.ids).toEqual(['same-c', 'same-b', 'same-a']);
      const asc = await allPages(store, { limit: 2, from: T0 + 100 * MIN, order: 'asc' });
      expect(asc.ids).toEqual(['same-a', 'same-b', 'same-c']);
    });

    it('refuses a cursor it did not give (400)', async () => {
      await expect(store.query({ limit: 5, cursor: 'not-a-cursor' })).rejects.toMatchObject({ kind: 'bad_request' });
    });

    it('prunes events older than the retention, and only those', async () => {
      expect(await store.prune(T0 + 10 * MIN)).toBe(10);
      expect(await store.prune(T0 + 10 * MIN)).toBe(0);
      const { ids } = await allPages(store, { limit: 200, order: 'asc' });
      expect(ids).toEqual(EVENTS.slice(10).map((e) => e.id));
    });
  });
}

auditStoreContract('memory', async () => ({ store: memoryAuditStore(), close: async () => undefined }));

auditStoreContract('SQLite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'audit-'));
  const store = openSqliteAudit(join(dir, 'audit.db'));
  return {
    store,
    close: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

auditStoreContract(
  'PostgreSQL',
  async () => {
    const db = await freshDatabase();
    const pool = openPool(db.url, { max: 2 });
    const store = await pgAuditStore(db.url, pool);
    return {
      store,
      close: async () => {
        await store.close();
        await pool.end();
        await db.drop();
      },
    };
  },
  describePg,
);
