import type { Caller } from '../../../core/shared/auth/caller';
import type { Ctx } from '../../../core/shared/context';
import { openSearchCore, type SearchCore } from '../../../core/search';
import { pgSearchStores } from '../../../core/search/postgres';
import { LISTENER_NAME } from '../../../core/search/postgres/watch';
import type { SearchRequest } from '../../../core/search/types';
import { testClock } from '../../shared/helpers';
import { describePg } from '../../shared/postgres';
import { eventually as waitUntil } from '../../shared/wait';
import { searchTestDatabase } from './pg-fixture';

const as = (tenantId: string): Ctx<Caller> => ({
  caller: {
    realm: 'r',
    subject: 'u',
    tenantId,
    roles: ['search:read', 'search:write'],
    scopes: [],
    clientId: 'c',
    username: 'u',
    sessionId: 's',
    tokenId: 't',
    expiresAt: 0,
    audience: ['search'],
    bearer: '',
  },
});
const T = as('t');
const req = (mode: SearchRequest['mode'], query: string): SearchRequest => ({ mode, query, filters: {}, offset: 0, limit: 10 });
const titles = async (core: SearchCore, mode: SearchRequest['mode'], query: string) =>
  (await core.service.search(req(mode, query), T)).hits.map((h) => h.object.title);

/** Polls until `check` holds; returns how long it took (reported, never asserted). */
const eventually = (check: () => Promise<boolean>) => waitUntil(check, 20_000, 5);

/**
 * Search cores on two pools of one database (two replicas): each finds what the other wrote, in
 * every mode, through its in-memory indexes following the change feed; a replica that was down
 * catches up when it starts again; the listening connection comes back when it is cut.
 */
describePg('search replicas on PostgreSQL', () => {
  const db = searchTestDatabase();
  let a: SearchCore;
  let b: SearchCore;
  let end: () => Promise<void>;
  let pools: Awaited<ReturnType<typeof db.pools>>['pools'];
  beforeEach(async () => {
    ({ pools, end } = await db.pools(3));
    [a, b] = [
      openSearchCore({ stores: pgSearchStores(pools[0]), clock: testClock() }),
      openSearchCore({ stores: pgSearchStores(pools[1]), clock: testClock() }),
    ];
  });
  afterEach(async () => {
    await Promise.all([a.close(), b.close()]);
    await end();
  });

  it('finds on one what the other created, renamed and deleted, in every mode', async () => {
    expect(await titles(b, 'fulltext', 'penguins')).toEqual([]);
    const created = await a.service.createObject({ content: 'Penguins waddle across the ice.', title: 'Penguins' }, T);
    const delays: number[] = [];
    for (const mode of ['fulltext', 'basic', 'semantic', 'hybrid'] as const) {
      delays.push(await eventually(async () => (await titles(b, mode, 'penguins')).includes('Penguins')));
    }
    await a.service.updateObject({ id: created.id, patch: { title: 'Seabirds' } }, T);
    delays.push(await eventually(async () => (await titles(b, 'fulltext', 'seabirds waddle')).includes('Seabirds')));
    await a.service.deleteObject({ id: created.id }, T);
    for (const mode of ['fulltext', 'basic', 'hybrid'] as const) {
      delays.push(await eventually(async () => (await titles(b, mode, 'penguins seabirds')).length === 0));
    }
    process.stdout.write(`search replicas: seen on the other replica after ${delays.join(', ')} ms\n`);
  });

  it('catches up a replica that was down: it finds what was written meanwhile, not what was deleted', async () => {
    const gone = await a.service.createObject({ content: 'Gannets plunge into the sea.', title: 'Gannets' }, T);
    await eventually(async () => (await titles(b, 'fulltext', 'gannets')).length === 1);
    await b.close();
    await a.service.createObject({ content: 'Puffins nest in burrows.', title: 'Puffins' }, T);
    await a.service.deleteObject({ id: gone.id }, T);
    b = openSearchCore({ stores: pgSearchStores(pools[2]), clock: testClock() });
    await b.warmUp();
    expect(await titles(b, 'fulltext', 'puffins')).toEqual(['Puffins']);
    expect(await titles(b, 'hybrid', 'gannets plunge')).toEqual([]);
  });

  it('listens again when its connection is cut, and hears the other replica after', async () => {
    await b.warmUp();
    const before = b.store.feeds.dataVersion();
    const { rows } = await pools[2].query<{ n: number }>(
      'SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()',
      [LISTENER_NAME],
    );
    expect(rows[0].n).toBe(2);
    // Listening again moves the version (changes may have gone unheard meanwhile).
    await eventually(async () => b.store.feeds.dataVersion() !== before);
    await eventually(
      async () =>
        (
          await pools[2].query('SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()', [
            LISTENER_NAME,
          ])
        ).rowCount === 2,
    );
    await a.service.createObject({ content: 'Terns migrate far.', title: 'Terns' }, T);
    await eventually(async () => (await titles(b, 'fulltext', 'terns')).includes('Terns'));
  });
});
