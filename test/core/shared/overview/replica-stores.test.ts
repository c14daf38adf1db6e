import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { memoryReplicaStore } from '../../../../core/shared/overview/memory-replicas';
import { pgReplicaStore } from '../../../../core/shared/overview/postgres-replicas';
import type { ReplicaRow, ReplicaStore } from '../../../../core/shared/overview/replicas';
import { openSqliteReplicas } from '../../../../core/shared/overview/sqlite-replicas';
import { openPool } from '../../../../core/shared/postgres';
import { describePg, freshDatabase } from '../../../shared/postgres';

/**
 * The replicas stores' contract (core/shared/overview/replicas.ts), the same cases for each, with
 * two handles on one store as two processes have (two workers on one replicas.db, two replicas on
 * one database): a row written by one is read by the other, replaced by its next heartbeat, and
 * deleted once not seen for long enough.
 */
const T0 = Date.UTC(2026, 0, 1);

const row = (id: string, lastSeen: number, over: Partial<ReplicaRow> = {}): ReplicaRow => ({
  id,
  host: `host-${id}`,
  pid: 4000 + id.length,
  worker: 2,
  version: '0.1.0',
  startedAt: T0,
  lastSeen,
  everyMs: 5000,
  services: ['token', 'search', 'gateway'],
  errors: [
    {
      at: lastSeen - 1,
      service: 'models',
      where: 'POST /proxy/api/v1/x',
      code: 'upstream',
      message: 'the vendor answered 500',
      requestId: 'req-1',
    },
    { at: lastSeen - 2, service: 'graph', where: 'query Q (a.b)', code: 'INTERNAL_SERVER_ERROR', message: 'TypeError: x' },
  ],
  ...over,
});

interface Opened {
  a: ReplicaStore;
  b: ReplicaStore;
  close(): Promise<void>;
}

function replicaStoreContract(name: string, open: () => Promise<Opened>, d: jest.Describe = describe) {
  d(`replicas store contract: ${name}`, () => {
    let s: Opened;
    beforeEach(async () => {
      s = await open();
    });
    afterEach(() => s.close());

    it('reads back a row another handle wrote, whole', async () => {
      const r = row('r1', T0 + 1000);
      await s.a.put(r);
      expect(await s.b.list()).toEqual([r]);
    });

    it("replaces a replica's row at its next heartbeat, keeping the others", async () => {
      await s.a.put(row('r1', T0 + 1000));
      await s.b.put(row('r2', T0 + 1000));
      const next = row('r1', T0 + 6000, { errors: [], everyMs: 1000, services: ['chat'] });
      await s.a.put(next);
      const rows = (await s.b.list()).sort((x, y) => x.id.localeCompare(y.id));
      expect(rows).toEqual([next, row('r2', T0 + 1000)]);
    });

    it('deletes the rows last seen before a time, and only those', async () => {
      for (const [id, at] of [
        ['old', T0],
        ['edge', T0 + 10],
        ['new', T0 + 20],
      ] as const)
        await s.a.put(row(id, at));
      expect(await s.b.prune(T0 + 10)).toBe(1);
      expect(await s.a.prune(T0 + 10)).toBe(0);
      expect((await s.a.list()).map((r) => r.id).sort()).toEqual(['edge', 'new']);
    });
  });
}

replicaStoreContract('memory', async () => {
  const store = memoryReplicaStore();
  return { a: store, b: store, close: async () => undefined };
});

replicaStoreContract('SQLite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'replicas-'));
  const a = openSqliteReplicas(join(dir, 'replicas.db'));
  const b = openSqliteReplicas(join(dir, 'replicas.db'));
  return {
    a,
    b,
    close: async () => {
      await a.close();
      await b.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

replicaStoreContract(
  'PostgreSQL',
  async () => {
    const db = await freshDatabase();
    const pools = [openPool(db.url, { max: 2 }), openPool(db.url, { max: 2 })];
    const [a, b] = await Promise.all(pools.map((p) => pgReplicaStore(db.url, p)));
    return {
      a,
      b,
      close: async () => {
        await Promise.all(pools.map((p) => p.end()));
        await db.drop();
      },
    };
  },
  describePg,
);

describe('a replicas.db row written by another version', () => {
  it('is read with what can be read: malformed lists become empty, never an error', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'replicas-'));
    try {
      const file = join(dir, 'replicas.db');
      void openSqliteReplicas(file).close();
      const db = new Database(file);
      db.prepare('INSERT INTO replicas VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').run(
        'x',
        'h',
        1,
        0,
        'v',
        T0,
        T0,
        5000,
        'not json',
        '{"an":"object"}',
      );
      db.close();
      const store = openSqliteReplicas(file);
      expect(await store.list()).toEqual([
        { id: 'x', host: 'h', pid: 1, worker: 0, version: 'v', startedAt: T0, lastSeen: T0, everyMs: 5000, services: [], errors: [] },
      ]);
      void store.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
