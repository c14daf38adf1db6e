import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { searchFixture } from './fixture';
import { freePort, platformCli, ROOT, run, startInTemp } from '../shared/server';

/**
 * SEARCH_EMBEDDING_MODEL: search embeds through the model gateway; `platform reindex` applies a change.
 *
 * Started platform: the CLI (`platform key create`, `platform reindex`) in its own processes, the
 * platform restarted over the same data directory, and a start refused for a bad setting.
 */
describe('search embedding through the model gateway', () => {
  const dir = mkdtempSync(join(tmpdir(), 'platform-embed-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('ingests with the default embedder, reindexes through the gateway, and searches with it; usage shows the calls', async () => {
    const made = await platformCli(dir, ['key', 'create', '--name', 'search-embedder', '--tenant', 'ops', '--models', 'local-embed']);
    expect(made.status).toBe(0);
    const key = JSON.parse(made.stdout).api_key as string;
    const PORT = String(await freePort());
    const withModel = { SEARCH_EMBEDDING_MODEL: 'local-embed', SEARCH_EMBEDDING_API_KEY: key };

    const first = await searchFixture({ PLATFORM_DATA_DIR: dir, PORT });
    const bearer = first.a;
    let created;
    try {
      created = await first.call('POST', '/cl/search/api/v2/objects', {
        body: { title: 'Glaciers', content: 'Glaciers retreat as the climate warms.' },
      });
    } finally {
      await first.platform.close();
    }
    expect(created.status).toBe(201);

    const reindex = await run(process.execPath, [join(ROOT, 'dist', 'bin', 'platform.js'), 'reindex'], {
      env: { PLATFORM_DATA_DIR: dir, ...withModel },
    });
    expect(reindex.status).toBe(0);
    expect(JSON.parse(reindex.stdout)).toMatchObject({ passages: 1, embedder: 'gateway:local-embed' });

    const second = await startInTemp('all', { PLATFORM_DATA_DIR: dir, PORT, ...withModel });
    try {
      const res = await fetch(`${second.url}/cl/search/api/v2/semantic?query_string=glaciers+climate&min_relevant_score=0`, {
        method: 'POST',
        headers: { authorization: bearer, 'content-type': 'application/json' },
        body: '{}',
      });
      const found = (await res.json()) as any;
      expect(res.status).toBe(200);
      expect(found.result.map((o: { object_id: string }) => o.object_id)).toEqual([created.body.object_id]);
      const usage = (await (await fetch(`${second.url}/proxy/api/v1/usage`, { headers: { 'api-key': key } })).json()) as any;
      // One call from reindex, one for the query.
      expect(usage.by_model).toEqual([expect.objectContaining({ model: 'local-embed', requests: 2, errors: 0 })]);
    } finally {
      await second.close();
    }
  }, 60_000);

  it('refuses to start with a model the catalog lacks, saying which setting is wrong', async () => {
    await expect(startInTemp('all', { SEARCH_EMBEDDING_MODEL: 'no-such-model' })).rejects.toThrow(/SEARCH_EMBEDDING_MODEL no-such-model/);
  });
});
