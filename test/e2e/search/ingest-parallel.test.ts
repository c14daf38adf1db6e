import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { searchFixture, type SearchFixture } from './fixture';
import { platformCli, type Ran } from '../shared/server';

/**
 * Parallel `platform ingest` runs over the same files and one fresh data directory: every run ends
 * with its JSON report (one adds each file, the others find it), never a stack trace, and the store
 * holds one live object per file. Then the server and the command writing at once.
 *
 * End to end: several processes writing one data directory (the built CLI, and the started
 * platform beside it) are what is tested.
 */
const RUNS = 20;
/** The second round only needs enough runs to race on the changed file. */
const RERUNS = 10;
const FILES = ['a.txt', 'b.md', 'c.html', 'sub/d.txt', 'sub/e.md'];

interface Report {
  files: number;
  created: number;
  replaced: number;
  unchanged: number;
  objects: { file: string; object_id: string }[];
}

const reportOf = (r: Ran): Report => {
  expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
  return JSON.parse(r.stdout) as Report;
};

/** Live objects per source file, read from search.db itself. */
const liveBySource = (dataDir: string): Record<string, number> => {
  const db = new Database(join(dataDir, 'search.db'), { readonly: true });
  try {
    const rows = db
      .prepare('SELECT source_key AS k, count(*) AS n FROM objects WHERE deleted_at IS NULL AND source_key IS NOT NULL GROUP BY source_key')
      .all() as { k: string; n: number }[];
    return Object.fromEntries(rows.map((r) => [r.k, r.n]));
  } finally {
    db.close();
  }
};

describe(`${RUNS} parallel 'platform ingest' runs of one folder into one data directory`, () => {
  const root = mkdtempSync(join(tmpdir(), 'platform-ingest-par-'));
  const dataDir = join(root, 'data');
  const docs = join(root, 'docs');
  const paths = FILES.map((f) => join(docs, f));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  beforeAll(() => {
    mkdirSync(join(docs, 'sub'), { recursive: true });
    FILES.forEach((f, i) => writeFileSync(join(docs, f), `Note ${i}: otters hold hands while they sleep, number ${i}.`));
  });

  const ingestAll = (runs: number) =>
    Promise.all(Array.from({ length: runs }, () => platformCli(dataDir, ['ingest', docs, '--tenant', 'acme'])));

  it('every run exits 0 with its JSON report; each file is added once and found by the others', async () => {
    const reports = (await ingestAll(RUNS)).map(reportOf);
    expect(reports.every((r) => r.files === FILES.length && r.created + r.unchanged === FILES.length && r.replaced === 0)).toBe(true);
    expect(reports.reduce((n, r) => n + r.created, 0)).toBe(FILES.length);
    for (const path of paths) {
      const ids = new Set(reports.flatMap((r) => r.objects.filter((o) => o.file === path).map((o) => o.object_id)));
      expect(ids.size).toBe(1);
    }
    expect(liveBySource(dataDir)).toEqual(Object.fromEntries(paths.map((p) => [p, 1])));
  }, 600_000);

  it('a changed file is replaced by one run; the others keep the new version', async () => {
    writeFileSync(paths[0], 'Otters changed: they also juggle pebbles.');
    const reports = (await ingestAll(RERUNS)).map(reportOf);
    expect(reports.reduce((n, r) => n + r.replaced, 0)).toBe(1);
    expect(reports.reduce((n, r) => n + r.created, 0)).toBe(0);
    expect(new Set(reports.map((r) => r.objects.find((o) => o.file === paths[0])!.object_id)).size).toBe(1);
    expect(liveBySource(dataDir)).toEqual(Object.fromEntries(paths.map((p) => [p, 1])));
  }, 600_000);
});

describe('the server and `platform ingest` writing to one data directory at once', () => {
  let f: SearchFixture;
  const docs = mkdtempSync(join(tmpdir(), 'platform-ingest-srv-'));
  beforeAll(async () => {
    f = await searchFixture();
    for (let i = 0; i < 8; i++) writeFileSync(join(docs, `n${i}.txt`), `Beavers build dams of type ${i} in the river.`);
  }, 60_000);
  afterAll(async () => {
    await f.stop();
    rmSync(docs, { recursive: true, force: true });
  });

  it('parallel uploads with one file_name each make their own object while the command ingests; all are found', async () => {
    const post = (i: number) =>
      f.call('POST', '/cl/search/api/v2/objects', { body: { content: `Kingfishers dive for fish, note ${i}.`, file_name: 'same.txt' } });
    const [cli, ...posts] = await Promise.all([
      platformCli(f.platform.dataDir, ['ingest', docs, '--tenant', 'tenant-a']),
      ...Array.from({ length: 10 }, (_, i) => post(i)),
    ]);
    expect(reportOf(cli)).toMatchObject({ files: 8, created: 8 });
    expect(posts.map((p) => p.status)).toEqual(Array(10).fill(201));
    // file_name is not an object's identity (only `platform ingest`'s path is): ten uploads, ten objects.
    expect(new Set(posts.map((p) => p.body.object_id)).size).toBe(10);
    const found = async (query: string) =>
      (await f.call('POST', `/cl/search/api/v2/fulltext?query_string=${query}&min_relevant_score=0&page_size=50`)).body.result_count;
    expect(await found('kingfishers')).toBe(10);
    expect(await found('beavers')).toBe(8);
  }, 120_000);
});

describe('an unexpected failure of the command', () => {
  it('is its JSON error on standard error with exit code 1, not a stack trace', async () => {
    const root = mkdtempSync(join(tmpdir(), 'platform-ingest-bad-'));
    try {
      mkdirSync(join(root, 'data'));
      writeFileSync(join(root, 'data', 'search.db'), 'this is not a database, only some text that is long enough');
      writeFileSync(join(root, 'a.txt'), 'Stoats.');
      const r = await platformCli(join(root, 'data'), ['ingest', join(root, 'a.txt'), '--tenant', 'acme']);
      expect(r.status).toBe(1);
      expect(JSON.parse(r.stderr)).toEqual({ error: expect.stringMatching(/not a database/), kind: 'internal' });
      expect(r.stderr).not.toMatch(/\n\s+at /);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }, 60_000);
});
