import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Caller } from '../../../core/shared/auth/caller';
import type { Ctx } from '../../../core/shared/context';
import { openSearchCore, type SearchCore } from '../../../core/search';
import { sqliteSearchStores } from '../../../core/search/sqlite';
import { pgSearchStores } from '../../../core/search/postgres';
import type { SearchRequest } from '../../../core/search/types';
import { testClock } from '../../shared/helpers';
import { describePg } from '../../shared/postgres';
import { searchTestDatabase } from './pg-fixture';

const caller = (tenantId: string, subject = `${tenantId}-user`, roles = ['search:read', 'search:write']): Ctx<Caller> => ({
  caller: {
    realm: 'r',
    subject,
    tenantId,
    roles,
    scopes: [],
    clientId: 'c',
    username: subject,
    sessionId: 's',
    tokenId: 't',
    expiresAt: 0,
    audience: ['search'],
    bearer: 'x',
  } satisfies Caller,
});

const A = caller('tenant-a');
const B = caller('tenant-b');
const req = (mode: SearchRequest['mode'], query: string, extra: Partial<SearchRequest> = {}): SearchRequest => ({
  mode,
  query,
  filters: {},
  offset: 0,
  limit: 10,
  ...extra,
});

type Open = () => Promise<{ core: SearchCore; close(): Promise<void> }>;

/** The search core's answers, the same over either store (ranking on PostgreSQL is its own basic search's ts_rank, see docs/postgres.md). */
const searchCoreCases = (name: string, open: Open) =>
  describe(`search core on ${name}`, () => {
    let core: SearchCore;
    let close: () => Promise<void>;
    beforeEach(async () => {
      ({ core, close } = await open());
      await core.service.createObject(
        { content: 'Glaciers retreat as the climate warms; sea levels rise.', title: 'Climate', tags: ['science', 'ice'], folders: ['f1'] },
        A,
      );
      await core.service.createObject(
        { content: 'Sourdough bread needs a starter, flour and water.', title: 'Baking', tags: ['food'], kvp: { cuisine: 'french' } },
        A,
      );
      await core.service.createObject(
        { content: 'The climate of Mars is cold and dry.', title: 'Mars', tags: ['science'], systemMetadata: { is_private: true } },
        A,
      );
      await core.service.createObject({ content: 'Climate secrets of tenant B.', title: 'B climate' }, B);
    });
    afterEach(() => close());

    it('full text finds a tenant its own objects, best first, with scores in [0,1]', async () => {
      const page = await core.service.search(req('fulltext', 'climate warms'), A);
      expect(page.hits.map((h) => h.object.title)).toEqual(['Climate', 'Mars']);
      expect(page.hits[0].score).toBe(1);
      expect(page.hits[1].score).toBeGreaterThan(0);
      expect(page.hits[1].score).toBeLessThan(1);
      expect(page.total).toBe(2);
      expect(page.aggregations.tags).toEqual([
        { key: 'science', doc_count: 2 },
        { key: 'ice', doc_count: 1 },
      ]);
    });

    it("never shows another tenant's objects, nor another user's private ones", async () => {
      const b = await core.service.search(req('fulltext', 'climate'), B);
      expect(b.hits.map((h) => h.object.title)).toEqual(['B climate']);
      const otherUser = await core.service.search(req('semantic', 'climate'), caller('tenant-a', 'someone-else'));
      expect(otherUser.hits.map((h) => h.object.title)).toEqual(['Climate']);
    });

    it('semantic, hybrid and basic searches rank the obvious match first', async () => {
      for (const mode of ['semantic', 'hybrid', 'basic'] as const) {
        const page = await core.service.search(req(mode, 'sourdough bread', { anywhere: true }), A);
        expect(page.hits[0]?.object.title).toBe('Baking');
      }
    });

    it('filters inside the query: tags, kvp, folders', async () => {
      expect(
        (await core.service.search(req('fulltext', 'climate', { filters: { folders: ['f1'] } }), A)).hits.map((h) => h.object.title),
      ).toEqual(['Climate']);
      expect(
        (await core.service.search(req('basic', '', { filters: { kvp: { cuisine: 'french' } } }), A)).hits.map((h) => h.object.title),
      ).toEqual(['Baking']);
    });

    it('passages over object ids', async () => {
      const page = await core.service.passages({ query: 'climate', filters: {}, offset: 0, limit: 5 }, A);
      expect(page.passages.map((p) => p.title)).toEqual(['Climate', 'Mars']);
    });

    it('soft delete hides the object everywhere', async () => {
      const [hit] = (await core.service.search(req('fulltext', 'sourdough'), A)).hits;
      await core.service.deleteObject({ id: hit.object.id }, A);
      expect((await core.service.search(req('fulltext', 'sourdough'), A)).total).toBe(0);
      await expect(core.service.getObject({ id: hit.object.id }, A)).rejects.toThrow('Object not found');
    });
  });

describe('a replica group (SEARCH_TENANTS)', () => {
  it("loads only its tenants at start; another tenant's index is built on that tenant's first search", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'search-group-'));
    const file = join(dir, 'search.db');
    try {
      const writer = openSearchCore({ stores: sqliteSearchStores(file), clock: testClock() });
      await writer.service.createObject({ content: 'Glaciers retreat as the climate warms.', title: 'A climate' }, A);
      await writer.service.createObject({ content: 'Climate secrets of tenant B.', title: 'B climate' }, B);
      await writer.close();
      const group = openSearchCore({ stores: sqliteSearchStores(file), clock: testClock(), tenants: ['tenant-a'] });
      await group.warmUp();
      expect(group.held()).toEqual(['tenant-a']);
      const found = await group.service.search(req('fulltext', 'climate'), B);
      expect(found.hits.map((h) => h.object.title)).toEqual(['B climate']);
      expect(group.held().sort()).toEqual(['tenant-a', 'tenant-b']);
      await group.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

searchCoreCases('SQLite', async () => {
  const core = openSearchCore({ stores: sqliteSearchStores(':memory:'), clock: testClock() });
  return { core, close: () => core.close() };
});

describePg('on PostgreSQL', () => {
  const db = searchTestDatabase();
  searchCoreCases('PostgreSQL', async () => {
    const { pools, end } = await db.pools(1);
    const core = openSearchCore({ stores: pgSearchStores(pools[0]), clock: testClock() });
    return {
      core,
      close: async () => {
        await core.close();
        await end();
      },
    };
  });
});
