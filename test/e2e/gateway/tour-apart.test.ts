import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expectGraphqlTour, startPlatformProcess, stopProcess, type PlatformProcess } from '../shared/processes';
import { pagesScript } from '../docs/run-page';
import { freePort, platformCli, ROOT, run } from '../shared/server';

/**
 * docs/parts-apart.md: `platform init`, then the four services and the gateway each its own
 * process (`platform serve <name> --port N`), as that page starts them; the GraphQL tour
 * (docs/graphql.md) walked against the gateway.
 */
describe('the GraphQL tour across five processes: four services served apart and the gateway', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'platform-apart-'));
  const procs: PlatformProcess[] = [];
  let gateway: PlatformProcess;

  beforeAll(async () => {
    const init = await platformCli(dataDir, ['init']);
    expect(init.status).toBe(0);
    expect(JSON.parse(init.stdout)).toEqual({ credentials: join(dataDir, 'bootstrap.json'), created: true });
    const [token, search, models, chat, gw] = await Promise.all(Array.from({ length: 5 }, () => freePort()));
    const at = (port: number) => `http://127.0.0.1:${port}`;
    const common = { PLATFORM_DATA_DIR: dataDir, AUTH_ISSUER_URL: at(token), WORKERS: '1', LOG_LEVEL: 'warn' };
    const serve = async (name: string, port: number, env: Record<string, string> = {}) => {
      const p = await startPlatformProcess(['serve', name, '--port', String(port)], { ...common, ...env });
      procs.push(p);
      return p;
    };
    await serve('token', token);
    await Promise.all([serve('search', search, { MODELS_URL: at(models) }), serve('models', models)]);
    await serve('chat', chat, { SEARCH_URL: at(search), MODELS_URL: at(models) });
    gateway = await serve('gateway', gw, {
      SUBGRAPH_TOKEN_URL: `${at(token)}/graphql`,
      SUBGRAPH_SEARCH_URL: `${at(search)}/graphql`,
      SUBGRAPH_MODELS_URL: `${at(models)}/graphql`,
      SUBGRAPH_CHAT_URL: `${at(chat)}/graphql`,
    });
  }, 90_000);
  afterAll(async () => {
    await Promise.all(procs.map((p) => stopProcess(p.child)));
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('each part says which it is, and init created nothing twice', async () => {
    expect(procs.map((p) => /platform \((\w+)\) listening/.exec(p.output())?.[1])).toEqual([
      'token',
      expect.any(String),
      expect.any(String),
      'chat',
      'gateway',
    ]);
    const again = await platformCli(dataDir, ['init']);
    expect(JSON.parse(again.stdout)).toMatchObject({ created: false });
  });

  it('runs the GraphQL tour against the gateway: a mutation, a query across three subgraphs, a subscription three ways', async () => {
    const ran = await run('bash', ['-c', pagesScript('docs/graphql.md')], {
      env: { GRAPHQL_URL: `${gateway.url}/graphql`, PLATFORM_DATA_DIR: dataDir },
    });
    expect(ran.stderr.replace(/npm warn .*\n/gi, '')).toBe('');
    expect(ran.status).toBe(0);
    expectGraphqlTour(ran.stdout);
  });

  it('bin/ask.ts says why a subscription was refused, and exits 1', async () => {
    const ask = await run(
      process.execPath,
      [join(ROOT, 'dist', 'bin', 'ask.js'), '--url', `${gateway.url}/graphql`, 'Why do glaciers retreat?'],
      { env: { ACCESS_TOKEN: '', API_KEY: '' } },
    );
    expect(ask).toMatchObject({ status: 1, stdout: '', stderr: 'error: Not authenticated (UNAUTHENTICATED)\n' });
  });

  it('stops every part cleanly on SIGTERM', async () => {
    expect(
      await Promise.all(
        procs
          .splice(0)
          .reverse()
          .map((p) => stopProcess(p.child)),
      ),
    ).toEqual([0, 0, 0, 0, 0]);
  });
});
