import { describeNginx, startNginx } from '../../shared/nginx';
import { describeReplicas, eventually, startReplicas, type ReplicaSet } from '../../shared/replicas';
import { expectGraphqlTour, expectRestTour } from '../shared/processes';
import { pagesScript, SERVICE_TOURS } from '../docs/run-page';
import { freePort, run } from '../shared/server';

jest.setTimeout(120_000);

const REPLICAS = Number(process.env.TEST_NGINX_REPLICAS ?? 2);

/**
 * The tours (docs/tour-*.md, docs/graphql.md) through the documented nginx configuration (docs/deploy/nginx-platform.conf)
 * in front of two replicas on one PostgreSQL and one Redis: consecutive requests land on either
 * replica, streamed answers (SSE, multipart) and the graphql-ws subscription (bin/ask.ts) pass
 * through nginx, and `platform ingest` writes where every replica reads.
 */
(describeReplicas === describe ? describeNginx : describe.skip)('the tours through nginx in front of replicas', () => {
  let set: ReplicaSet;
  let lb: Awaited<ReturnType<typeof startNginx>>;
  let env: Record<string, string>;

  beforeAll(async () => {
    const port = await freePort();
    // LOG_LEVEL info: each replica logs the requests it answered (the access log), which says where nginx sent them.
    set = await startReplicas({ count: REPLICAS, publicPort: port, env: { LOG_LEVEL: 'info' } });
    lb = await startNginx(
      port,
      set.replicas.map((r) => r.port),
    );
    const { DATABASE_URL, REDIS_URL, REDIS_KEY_PREFIX } = set.env;
    env = {
      BASE: lb.url,
      GRAPHQL_URL: `${lb.url}/graphql`,
      PLATFORM_DATA_DIR: set.replicas[0].dataDir,
      DATABASE_URL: DATABASE_URL,
      REDIS_URL: REDIS_URL,
      REDIS_KEY_PREFIX: REDIS_KEY_PREFIX,
    };
  }, 180_000);
  afterAll(async () => {
    await lb?.stop();
    await set?.stop();
  });

  it('spreads requests over the replicas', async () => {
    const answered = () => set.replicas.map((r) => r.process.output().split('"path":"/readyz"').length - 1);
    const before = answered();
    // In parallel: least_conn sends each to the replica with the fewest open requests.
    const all = await Promise.all(
      Array.from({ length: 20 }, () => fetch(`${lb.url}/readyz`).then(async (res) => ({ status: res.status, body: await res.json() }))),
    );
    for (const r of all)
      expect(r).toEqual({ status: 200, body: { status: 'ready', checks: { postgres: 'up', redis: 'up', search: 'ready' } } });
    // The access log line is written as each answer ends.
    const each = () => answered().map((n, i) => n - before[i]);
    await eventually(() => each().reduce((a, b) => a + b, 0) >= 20);
    expect(each().reduce((a, b) => a + b, 0)).toBe(20);
    for (const n of each()) expect(n).toBeGreaterThan(0);
  });

  it("runs every command of the four services' tours", async () => {
    const ran = await run('bash', ['-c', pagesScript(...SERVICE_TOURS)], { env });
    expect(ran.stderr.replace(/npm warn .*\n/gi, '')).toBe('');
    expect(ran.status).toBe(0);
    expectRestTour(ran.stdout);
    expect(lb.errors()).not.toMatch(/\[(error|crit|alert|emerg)\]/);
  }, 120_000);

  it('runs the GraphQL tour: a subscription over graphql-ws, SSE and multipart, through nginx', async () => {
    const ran = await run('bash', ['-c', pagesScript('docs/graphql.md')], { env });
    expect(ran.stderr.replace(/npm warn .*\n/gi, '')).toBe('');
    expect(ran.status).toBe(0);
    expectGraphqlTour(ran.stdout);
  }, 120_000);
});
