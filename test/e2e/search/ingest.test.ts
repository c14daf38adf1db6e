import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Caller } from '../../../core/shared/auth/caller';
import type { Ctx } from '../../../core/shared/context';
import { openSearchCore } from '../../../core/search';
import { sqliteSearchStores } from '../../../core/search/sqlite';
import { docxWith, pdfWith } from '../../core/search/fixtures';
import { platformCli } from '../shared/server';

const asTenant = (tenantId: string): Ctx<Caller> => ({
  caller: {
    realm: 'r',
    subject: 'reader',
    tenantId,
    roles: ['search:read'],
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

/**
 * `platform ingest` and `platform reindex`, the built command in its own process (pdf.js runs there, not under jest).
 *
 * End to end: the CLI is what is tested, run as the built command.
 */
describe('platform ingest <folder>', () => {
  const root = mkdtempSync(join(tmpdir(), 'platform-ingest-'));
  const dataDir = join(root, 'data');
  const docs = join(root, 'docs');
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  beforeAll(async () => {
    mkdirSync(join(docs, 'sub'), { recursive: true });
    writeFileSync(join(docs, 'a.txt'), 'Hedgehogs eat beetles at night.');
    writeFileSync(join(docs, 'sub', 'b.md'), '# Badgers\n\nBadgers dig long tunnels called setts.');
    writeFileSync(join(docs, 'c.html'), '<h1>Moles</h1><p>Moles are nearly blind.</p>');
    writeFileSync(join(docs, 'd.docx'), await docxWith(['Voles are small rodents.']));
    writeFileSync(join(docs, 'e.pdf'), pdfWith('Shrews have a very fast heartbeat.'));
    writeFileSync(join(docs, 'broken.pdf'), '%PDF-1.4 garbage');
    writeFileSync(join(docs, 'image.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    writeFileSync(join(docs, '.hidden.txt'), 'never indexed');
  });

  const ingest = async (...args: string[]) => {
    const r = await platformCli(dataDir, ['ingest', docs, '--tenant', 'acme', ...args]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    return JSON.parse(r.stdout);
  };

  it('indexes every readable file, names the ones it cannot read, and re-runs change nothing', async () => {
    const first = await ingest('--tags', 'wildlife', '--repo', 'field-notes');
    expect(first).toMatchObject({ files: 7, created: 5, replaced: 0, unchanged: 0 });
    expect(first.skipped.map((s: { file: string }) => s.file.split('/').pop()).sort()).toEqual(['broken.pdf', 'image.png']);
    expect(first.skipped.find((s: { file: string }) => s.file.endsWith('broken.pdf')).reason).toContain('broken.pdf');

    const again = await ingest();
    expect(again).toMatchObject({ files: 7, created: 0, replaced: 0, unchanged: 5 });

    writeFileSync(join(docs, 'a.txt'), 'Hedgehogs eat beetles and worms at night.');
    const changed = await ingest();
    expect(changed).toMatchObject({ created: 0, replaced: 1, unchanged: 4 });
  }, 60_000);

  it('the objects are searchable by their text, each format, with folders, tags and repos set', async () => {
    const core = openSearchCore({ stores: sqliteSearchStores(join(dataDir, 'search.db')) });
    try {
      for (const [query, file] of [
        ['hedgehogs worms', 'a.txt'],
        ['setts', 'b.md'],
        ['blind', 'c.html'],
        ['rodents', 'd.docx'],
        ['heartbeat', 'e.pdf'],
      ]) {
        const page = await core.service.search({ mode: 'fulltext', query: query, filters: {}, offset: 0, limit: 5 }, asTenant('acme'));
        expect(page.hits.map((h) => h.object.fileName)).toEqual([file]);
      }
      const sub = await core.service.search(
        { mode: 'basic', query: '', filters: { folders: ['docs/sub'] }, offset: 0, limit: 5 },
        asTenant('acme'),
      );
      expect(sub.hits.map((h) => h.object.fileName)).toEqual(['b.md']);
      expect(sub.hits[0].object).toMatchObject({ tags: ['wildlife'], repos: ['field-notes'], fileExtension: 'md' });
      const other = await core.service.search(
        { mode: 'fulltext', query: 'hedgehogs', filters: {}, offset: 0, limit: 5 },
        asTenant('someone-else'),
      );
      expect(other.total).toBe(0);
      const old = await core.service.search({ mode: 'fulltext', query: 'hedgehogs', filters: {}, offset: 0, limit: 5 }, asTenant('acme'));
      expect(old.total).toBe(1);
    } finally {
      await core.close();
    }
  });

  it('reindex re-embeds every passage', async () => {
    const r = await platformCli(dataDir, ['reindex']);
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ passages: 6, embedder: 'hashing-words-1024' });
  });

  it('without --tenant and without bootstrap.json it says what to do', async () => {
    const r = await platformCli(dataDir, ['ingest', docs]);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('--tenant is required');
  });
});
