import { existsSync, lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { Redis } from 'ioredis';
import { randomBytes } from 'node:crypto';
import { allPages, type Page } from './markdown';
import { projectCopy } from './project-copy';
import { explain, runPage } from './run-page';
import { ignoredByGit } from './written';
import { freePort } from '../shared/server';
import { NGINX } from '../../shared/nginx';

jest.setTimeout(240_000);

const DATABASE_URL = process.env.DATABASE_URL;
const REDIS_URL = process.env.REDIS_URL;
const onPath = (cmd: string) => (process.env.PATH ?? '').split(':').some((d) => existsSync(join(d, cmd)));
const at = (url: string | undefined, host: string) => {
  if (!url) return false;
  const u = new URL(url);
  return `${u.username ? `${u.username}@` : ''}${u.host}` === host;
};
/**
 * The pages name the servers as a newcomer's machine has them (PostgreSQL at 127.0.0.1:5432 as
 * `postgres`, with its client commands; Redis at 127.0.0.1:6379): they run where the tests' servers
 * are those.
 */
const have: Record<string, boolean> = {
  postgres: at(DATABASE_URL, 'postgres@127.0.0.1:5432') && onPath('createdb'),
  redis: at(REDIS_URL, '127.0.0.1:6379'),
  nginx: !!NGINX,
};

const pages = allPages().filter((p) => p.directive?.mode === 'alone');
const runnable = pages.filter((p) => p.directive!.needs.every((n) => have[n]));
const waiting = pages.filter((p) => !runnable.includes(p));

async function onServer(sql: string) {
  const url = new URL(DATABASE_URL!);
  url.pathname = '/postgres';
  const c = new Client({ connectionString: url.toString() });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

/**
 * Each page marked `alone` (it starts what it needs: the parts apart, replicas), as written, in a
 * fresh copy of the project, its `fresh ports` free ones and its `fresh database` a new one. The
 * parts apart run with METRICS_PORT set in the environment, as an operator's shell may have it:
 * every part must still get a metrics port of its own. A page that needs what the environment
 * lacks (PostgreSQL, Redis) is skipped, as the other suites that need them are.
 */
describe('the docs pages that start what they need, run as written', () => {
  const run = async (page: Page, env: Record<string, string>) => {
    const copy = projectCopy();
    const databases = page.directive!.databases.map((d) => [d, `docs_test_${randomBytes(6).toString('hex')}`] as const);
    const ports = await Promise.all(page.directive!.ports.map(async (p) => [p, String(await freePort())] as const));
    const prefix = `test:docs:${randomBytes(6).toString('hex')}:`;
    try {
      const ran = await runPage(page, {
        cwd: copy.dir,
        env: { ...env, REDIS_KEY_PREFIX: prefix },
        standIns: new Map([...ports, ...databases]),
      });
      if (ran.status !== 0 || ran.failed) throw new Error(explain(ran));
      expect(ran.leftovers).toEqual([]);
      const written = readdirSync(copy.dir).filter((n) => !lstatSync(join(copy.dir, n)).isSymbolicLink());
      expect(written.filter((n) => !ignoredByGit(n, lstatSync(join(copy.dir, n)).isDirectory()))).toEqual([]);
      return { ran, ports: new Map(ports), copy: copy.dir };
    } finally {
      copy.remove();
      for (const [, name] of databases) await onServer(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      if (REDIS_URL && page.directive!.needs.includes('redis')) {
        const redis = new Redis(REDIS_URL);
        try {
          const keys = await redis.keys(`${prefix}*`);
          if (keys.length) await redis.del(...keys);
        } finally {
          redis.disconnect();
        }
      }
    }
  };

  it('finds the pages: the parts apart, the replicas', () => {
    expect(pages.map((p) => p.path)).toEqual(expect.arrayContaining(['docs/parts-apart.md', 'docs/replicas.md']));
    const missing = [...new Set(waiting.flatMap((p) => p.directive!.needs.filter((n) => !have[n])))];
    if (waiting.length)
      process.stdout.write(
        `docs pages skipped here (no ${missing.join(', ')} as they name it): ${waiting.map((p) => p.path).join(', ')}\n`,
      );
  });

  it('docs/parts-apart.md, with METRICS_PORT set in the environment: five parts, each with metrics of its own, stopped', async () => {
    const page = pages.find((p) => p.path === 'docs/parts-apart.md')!;
    const { ran, ports } = await run(page, { METRICS_PORT: String(await freePort()) });
    // Each of the five metrics ports (the page's 9464-9468) answered with the platform's metrics.
    for (const p of ['9464', '9465', '9466', '9467', '9468'])
      expect(ran.stdout).toMatch(new RegExp(`\\n${ports.get(p)}: [1-9]\\d* metric lines`));
    expect(ran.stdout).toMatch(/"realm":\{"name":"default"\},"search":\{"totalCount":0\},"models":\[\{"id":"local-chat"/);
  });

  it('docs/trusted-documents.md: a list loaded, its document run by id, anything else refused, stopped', async () => {
    const page = pages.find((p) => p.path === 'docs/trusted-documents.md')!;
    const { ran } = await run(page, {});
    expect(ran.stdout).toMatch(/"app": "web",\n {4}"format": "graphql-codegen-persisted-documents",\n {4}"documents": 1/);
    expect(ran.stdout).toContain('refused, as expected');
    expect(ran.stderr).toContain("Document 'broken' is not valid against the graph's schema");
    expect(ran.stdout.match(/\{"data":\{"realm":\{"name":"default"\}\}\}/g)).toHaveLength(4);
    expect(ran.stdout.match(/"code":"PERSISTED_QUERY_NOT_LISTED"/g)).toHaveLength(2);
    expect(ran.stdout).toMatch(/\{"app":"ios","format":"apollo-persisted-query-manifest","documents":1,/);
  });

  (runnable.some((p) => p.path === 'docs/replicas.md') ? it : it.skip)(
    'docs/replicas.md: the database made, two replicas on it bootstrapped once, stopped',
    async () => {
      const page = pages.find((p) => p.path === 'docs/replicas.md')!;
      const { ran } = await run(page, {});
      expect(ran.stdout).toContain('"active":"true"');
      // data-2/bootstrap.json: the first replica's realm, demo accounts and administrator, by id or name only.
      expect(ran.stdout).toMatch(
        /\{\n {2}"realm": "[0-9a-f-]{36}",\n {2}"tenant_id": "[0-9a-f-]{36}",\n {2}"client_id": "demo-client",\n {2}"username": "demo-user",\n {2}"admin_username": "admin"\n\}/,
      );
    },
  );
});
