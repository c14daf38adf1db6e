/**
 * `npm run bench:auth-flood`: what a flood of 60 parallel wrong credentials from one address does
 * to everyone else. Starts the built platform (`platform start`, real scrypt N=2^17, `WORKERS` as
 * given, `TRUST_PROXY=loopback` so X-Forwarded-For names the caller), then, idle and during each
 * flood, measures `/healthz` latency (one probe at a time) and one valid client-token request and
 * one valid login (a user whose password is not yet cached, so it is hashed) from another address.
 * Floods: wrong secrets for a client still kept as scrypt (a data directory from before the keyed
 * hash: the attack of issue 17), for a generated client (keyed hash), and wrong passwords.
 * Env: BENCH_IDLE_PROBES (200). Needs `npm run build` first. One run; figures vary with the load.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { openTokenCore } from '../../core/token';
import { sqliteTokenStores } from '../../core/token/sqlite';
import { scryptHasher } from '../../core/token/secrets';
import { floodOnce, idle, type Row } from './auth-flood-run';
import { freePort, killAllSync, startChild, stopAll, waitHealthy } from '../shared/procs';
import { loadAverage } from '../shared/settings';

const ROOT = resolve(__dirname, '..', '..', '..');
const PLATFORM_JS = join(ROOT, 'dist', 'bin', 'platform.js');
const PASSWORD = 'a password of the bench';

async function main(): Promise<void> {
  if (!existsSync(PLATFORM_JS)) throw new Error('dist/bin/platform.js is missing: run `npm run build` first');
  const loadBefore = loadAverage();
  const dir = mkdtempSync(join(tmpdir(), 'auth-flood-'));
  process.on('exit', () => {
    killAllSync();
    rmSync(dir, { recursive: true, force: true });
  });
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env = {
    ...process.env,
    METRICS_PORT: '0',
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_URL: '',
    PLATFORM_DATA_DIR: join(dir, 'data'),
    TRUST_PROXY: 'loopback',
    LOG_LEVEL: process.env.LOG_LEVEL || 'warn',
  };
  const server = startChild('platform', [PLATFORM_JS, 'start'], { env, cwd: ROOT, logFile: join(dir, 'platform.log') });
  await waitHealthy(`${url}/healthz`, server, 180_000);
  for (let i = 0; i < 600 && !existsSync(join(dir, 'data', 'bootstrap.json')); i++) await new Promise((r) => setTimeout(r, 100));
  const boot = JSON.parse(readFileSync(join(dir, 'data', 'bootstrap.json'), 'utf8')) as Record<string, string>;

  // Accounts for the floods, written into the running server's token.db as `platform` would.
  const admin = await openTokenCore({ stores: sqliteTokenStores(join(dir, 'data', 'token.db'), { durable: true }), publicUrl: url });
  const realm = boot.realm;
  const legacy = await admin.admin.createClient({ realm, clientId: 'legacy' });
  await admin.store.clients.setSecretHash(realm, 'legacy', await scryptHasher().hash(legacy.client_secret));
  const users = ['victim', 'login-0', 'login-1', 'login-2', 'login-3'];
  await Promise.all(users.map((username) => admin.admin.createUser({ realm, username, password: PASSWORD })));
  await admin.close();

  const valid = { client: { client_id: boot.client_id, client_secret: boot.client_secret }, password: PASSWORD };
  const rows: Row[] = [await idle(url, realm, valid, 'login-0', Number(process.env.BENCH_IDLE_PROBES || 200))];
  const floods: [string, (i: number) => Record<string, string>, 'token' | 'login'][] = [
    ['60 wrong secrets, client kept as scrypt', (i) => ({ client_id: 'legacy', client_secret: `wrong-${i}` }), 'token'],
    ['60 wrong secrets, generated client (keyed)', (i) => ({ client_id: boot.client_id, client_secret: `wrong-${i}` }), 'token'],
    ['60 wrong passwords', (i) => ({ username: 'victim', password: `wrong-${i}` }), 'login'],
  ];
  for (const [k, [name, form, path]] of floods.entries()) {
    rows.push(
      await floodOnce(
        url,
        realm,
        { name, form, path, from: `198.51.100.${k + 1}`, validFrom: `203.0.113.${k + 1}` },
        valid,
        `login-${k + 1}`,
      ),
    );
  }

  const out = process.stdout;
  out.write(
    `node ${process.version}, load average before start ${loadBefore}, WORKERS=${process.env.WORKERS ?? 'default'}, real scrypt N=2^17\n\n`,
  );
  out.write(
    '| while | flood answers | flood took ms | /healthz p50 / p99 / max ms (probes) | valid client token ms | valid login ms |\n|---|---|---:|---|---:|---:|\n',
  );
  for (const r of rows) {
    out.write(
      `| ${r.name} | ${r.answers} | ${r.floodMs} | ${r.health.p50} / ${r.health.p99} / ${r.health.max} (${r.health.n}) | ${r.clientMs} | ${r.loginMs} |\n`,
    );
  }
  await stopAll();
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`bench:auth-flood failed: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
