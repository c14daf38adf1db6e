import Database from 'better-sqlite3';
import { rmSync } from 'node:fs';
import type { Caller } from '../../../core/shared/auth/caller';
import type { Ctx } from '../../../core/shared/context';
import { openSearchCore } from '../../../core/search';
import { sqliteSearchStores } from '../../../core/search/sqlite';
import { Bm25Index } from '../../../core/search/lexical/bm25';
import { tokens } from '../../../core/shared/text/tokenize';
import { testClock } from '../../shared/helpers';

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

const DOCS = [
  ['Glaciers', 'Glaciers retreat as the climate warms and glaciers thin.'],
  ['Climate models', 'Models of the climate predict warming; the models disagree on clouds.'],
  ['Ice cores', 'Ice cores record the climate of past ages.'],
  ['Bread', 'Sourdough bread rises slowly.'],
  ['Warming oceans', 'Oceans absorb heat as the planet warms, and sea ice retreats.'],
];

describe('the in-memory BM25 index', () => {
  it('scores every passage exactly as SQLite FTS5 bm25() with title weight 2', () => {
    const db = new Database(':memory:');
    db.exec("CREATE VIRTUAL TABLE f USING fts5(title, text, tokenize = 'porter unicode61 remove_diacritics 2')");
    const index = new Bm25Index();
    DOCS.forEach(([title, text], i) => {
      db.prepare('INSERT INTO f (rowid, title, text) VALUES (?, ?, ?)').run(i + 1, title, text);
      index.add(i + 1, i + 1, tokens(title), tokens(text));
    });
    for (const query of ['climate warming', 'glaciers retreat ice', 'bread', 'oceans heat models clouds']) {
      const match = tokens(query)
        .map((t) => `"${t}"`)
        .join(' OR ');
      const fts = db.prepare('SELECT rowid AS id, -bm25(f, 2.0, 1.0) AS s FROM f WHERE f MATCH ? ORDER BY s DESC').all(match) as {
        id: number;
        s: number;
      }[];
      const ours = index.search(tokens(query), () => true).sort((a, b) => b.score - a.score);
      expect(ours.map((p) => p.chunkId)).toEqual(fts.map((r) => r.id));
      ours.forEach((p, i) => expect(p.score).toBeCloseTo(fts[i].s, 9));
    }
  });

  it('forgets removed objects and filters through accept', () => {
    const index = new Bm25Index();
    index.add(1, 10, tokens('a'), tokens('climate one'));
    index.add(2, 20, tokens('b'), tokens('climate two'));
    index.add(3, 20, tokens('b'), tokens('climate three'));
    index.removeObject(20);
    expect(index.search(tokens('climate'), () => true).map((p) => p.chunkId)).toEqual([1]);
    expect(index.search(tokens('climate'), (seq) => seq !== 10)).toEqual([]);
    expect(index.size).toBe(1);
  });

  it('follows writes made through another connection: added, renamed and deleted objects', async () => {
    const file = `/tmp/lexical-${process.pid}-${Date.now()}.db`;
    const server = openSearchCore({ stores: sqliteSearchStores(file), clock: testClock() });
    const cli = openSearchCore({ stores: sqliteSearchStores(file), clock: testClock() });
    const search = async (query: string) =>
      (await server.service.search({ mode: 'fulltext', query, filters: {}, offset: 0, limit: 10 }, as('t'))).hits.map(
        (h) => h.object.title,
      );
    await server.service.createObject({ content: 'Penguins waddle.', title: 'Penguins' }, as('t'));
    expect(await search('penguins')).toEqual(['Penguins']);
    const other = await cli.service.createObject({ content: 'Puffins dive for fish.', title: 'Puffins' }, as('t'));
    expect(await search('puffins')).toEqual(['Puffins']);
    await cli.service.updateObject({ id: other.id, patch: { title: 'Seabirds' } }, as('t'));
    expect(await search('seabirds')).toEqual(['Seabirds']);
    expect(await search('puffins dive')).toEqual(['Seabirds']);
    await cli.service.deleteObject({ id: other.id }, as('t'));
    expect(await search('puffins')).toEqual([]);
    expect(await search('penguins')).toEqual(['Penguins']);
    // A process that starts later warms its indexes up in slices, then answers the same.
    for (let i = 0; i < 30; i++)
      await cli.service.createObject({ content: `Gannets number ${i} plunge into the sea.`, title: `Gannet ${i}` }, as('u'));
    const late = openSearchCore({ stores: sqliteSearchStores(file), clock: testClock() });
    await late.warmUp();
    const gannets = await late.service.search({ mode: 'hybrid', query: 'gannets plunge', filters: {}, offset: 0, limit: 50 }, as('u'));
    expect(gannets.total).toBe(30);
    expect((await late.service.search({ mode: 'fulltext', query: 'penguins', filters: {}, offset: 0, limit: 5 }, as('t'))).total).toBe(1);
    await late.close();
    await server.close();
    await cli.close();
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
  });
});
