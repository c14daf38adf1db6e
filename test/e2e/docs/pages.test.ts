import { existsSync, lstatSync, readdirSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { allPages } from './markdown';
import { npmStart, type NpmStarted } from './npm-start';
import { projectCopy } from './project-copy';
import { explain, runPage } from './run-page';
import { expectGraphqlTour, expectRestTour } from '../shared/processes';
import { freePort } from '../shared/server';
import { ignoredByGit } from './written';

jest.setTimeout(240_000);

/**
 * The README and every page marked `with the platform started`, each run as written in one bash
 * against one `npm start` (the README's way) in a fresh copy of the project, BASE naming it. The
 * README first; the others in name order.
 */
const pages = allPages().filter((p) => p.directive?.mode === 'started');

describe('the README and the docs pages, run as written against npm start', () => {
  const copy = projectCopy();
  let server: NpmStarted;
  const outputs: Record<string, string> = {};

  beforeAll(async () => {
    server = await npmStart(copy.dir, { PORT: String(await freePort()) });
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    copy.remove();
  });

  it.each(pages.map((p) => [p.path, p] as const))('%s', async (_path, page) => {
    const standIns = new Map(await Promise.all(page.directive!.ports.map(async (p) => [p, String(await freePort())] as const)));
    const run = await runPage(page, { cwd: copy.dir, env: { BASE: server.url }, standIns });
    outputs[page.path] = run.stdout;
    if (run.status !== 0 || run.failed) throw new Error(explain(run));
    expect(run.leftovers).toEqual([]);
  });

  it('left nothing that git would track: whatever the pages wrote is ignored', () => {
    const written = readdirSync(copy.dir).filter((n) => !lstatSync(join(copy.dir, n)).isSymbolicLink());
    expect(written).toEqual(expect.arrayContaining(['data', 'backups', 'data.restored']));
    expect(written.filter((n) => !ignoredByGit(n, lstatSync(join(copy.dir, n)).isDirectory()))).toEqual([]);
  });

  it("printed what each step should: the tours of the four services, the graph's, the README's", () => {
    expect(existsSync(join(copy.dir, 'data', 'bootstrap.json'))).toBe(true);
    expectRestTour(
      ['docs/tour-token.md', 'docs/tour-search.md', 'docs/tour-models.md', 'docs/tour-chat.md'].map((p) => outputs[p] ?? '').join('\n'),
    );
    expectGraphqlTour(outputs['docs/graphql.md'] ?? '');
    const admin = outputs['docs/admin.md'] ?? '';
    expect(admin).toMatch(/"username":"bob".*"roles":\["search:read"\]/);
    expect(admin).toContain(`{"detail":"no realm '`);
    expect(admin).toMatch(/etag: "1"/i);
    expect(admin).toMatch(/"email":"bob@acme.example".*"version":2/);
    expect(admin).toContain('has changed since it was read (now version 2)');
    expect(admin).toMatch(/"api_key":"lmk-/);
    expect(admin).toMatch(/"type": "user\.update"/);
    const readme = outputs['README.md'] ?? '';
    expect(readme).toContain('"active":"true"');
    expect(readme).toContain('"message":"Object created"');
    expect(readme).toMatch(/"message":"Documents found","result_count":[1-9]/);
    expect(readme).toContain('"content":"Glaciers retreat as the climate warms.","refusal":null},"finish_reason":"stop"');
    expect(readme).toMatch(/data: \{"generated_search_text":"Why do glaciers retreat\?","response":"Glaciers retreat/);
    expect(readme).toMatch(/"viewer":\{"username":"[^"]+","realm":\{"name":"default"\}\},"search":\{"totalCount":[1-9]/);
  });

  it('stops as the README says (npm gets SIGTERM): npm exits 0, its port is free, nothing of it is left', async () => {
    const port = Number(new URL(server.url).port);
    expect(await server.stop()).toBe(0);
    expect(server.left).toEqual([]);
    await expect(
      new Promise((resolve) => {
        const s = connect(port, '127.0.0.1');
        s.once('connect', () => (s.destroy(), resolve('open')));
        s.once('error', () => resolve('closed'));
      }),
    ).resolves.toBe('closed');
  });
});
