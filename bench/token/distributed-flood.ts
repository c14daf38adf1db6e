/**
 * `npm run bench:auth-flood-distributed`: the password flood of issue 30. 15 source addresses x 4
 * wrong passwords at once, in waves (the next when the last is answered), each address far under
 * its own limit; beside each wave, honest logins from fresh addresses, each a user whose password
 * is not remembered (so it is hashed), timed. Two attacks: every guess at one account, and every
 * guess at a different name (credential stuffing), each in a realm of its own. Reports honest-login
 * p50/p99 idle and under each attack, what the flood was answered, and the scrypt hashes it cost the
 * server (counted in the platform's processes by count-scrypt.ts, the honest logins' taken out).
 *
 * Starts the built platform (`platform start`, real scrypt N=2^17, `WORKERS` as given,
 * `TRUST_PROXY=loopback` so X-Forwarded-For names the caller). With `BENCH_BEFORE=<checkout>` (a
 * worktree of an older commit, built), that build is measured first in the same run, then this one.
 * Env: BENCH_WAVES (5), BENCH_IDLE_LOGINS (10). Needs `npm run build` first. Figures vary with the load.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execFileSync } from 'node:child_process';
import { openTokenCore } from '../../core/token';
import { sqliteTokenStores } from '../../core/token/sqlite';
import { honestCallers, login, percentile, scryptCalls, wave } from './distributed-flood-run';
import { freePort, killAllSync, startChild, stopChild, waitHealthy } from '../shared/procs';
import { intEnv, loadAverage } from '../shared/settings';

const ROOT = resolve(__dirname, '..', '..', '..');
const COUNT_JS = join(__dirname, 'count-scrypt.js');
const PASSWORD = 'an honest password of the bench';
const MAX_HONEST = 4;

interface Row {
  build: string;
  attack: string;
  honest: number[];
  answers: Map<number, number>;
  hashes: number;
  guesses: number;
  floodS: number;
}

const ms = (v: number) => (Number.isNaN(v) ? '-' : (v / 1000).toFixed(2));

/** The commit a checkout is at, for the table. */
const commitOf = (root: string) => {
  try {
    return execFileSync('git', ['-C', root, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  } catch {
    return '?';
  }
};

async function measure(name: string, root: string, waves: number, idleLogins: number): Promise<Row[]> {
  const platformJs = join(root, 'dist', 'bin', 'platform.js');
  if (!existsSync(platformJs)) throw new Error(`${platformJs} is missing: build that checkout first`);
  const dir = mkdtempSync(join(tmpdir(), 'auth-flood-distributed-'));
  const scryptDir = join(dir, 'scrypt');
  mkdirSync(scryptDir);
  try {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const data = join(dir, 'data');
    const env = {
      ...process.env,
      METRICS_PORT: '0',
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_URL: '',
      PLATFORM_DATA_DIR: data,
      TRUST_PROXY: 'loopback',
      LOG_LEVEL: process.env.LOG_LEVEL || 'warn',
      BENCH_SCRYPT_DIR: scryptDir,
    };
    const server = startChild(`platform (${name})`, ['--require', COUNT_JS, platformJs, 'start'], {
      env,
      cwd: root,
      logFile: join(dir, 'platform.log'),
    });
    await waitHealthy(`${url}/healthz`, server, 180_000);
    for (let i = 0; i < 600 && !existsSync(join(data, 'bootstrap.json')); i++) await new Promise((r) => setTimeout(r, 100));

    // Two realms (one per attack, so one's failures do not fill the other's count), written into the running server's token.db as `platform` would.
    const admin = await openTokenCore({ stores: sqliteTokenStores(join(data, 'token.db'), { durable: true }), publicUrl: url });
    const realms: { id: string; users: string[] }[] = [];
    for (const [r, count] of [
      ['one-account', idleLogins + waves * MAX_HONEST],
      ['fresh-names', waves * MAX_HONEST],
    ] as const) {
      const id = (await admin.admin.createRealm({ name: r })).id;
      const users = Array.from({ length: count }, (_, i) => `honest-${i}`);
      await Promise.all(['victim', ...users].map((username) => admin.admin.createUser({ realm: id, username, password: PASSWORD })));
      realms.push({ id, users });
    }
    await admin.close();

    const [one, fresh] = realms as [(typeof realms)[0], (typeof realms)[0]];
    const rows: Row[] = [];
    const oneHonest = honestCallers(one.users);
    const idle: number[] = [];
    for (let i = 0; i < idleLogins; i++) {
      const h = oneHonest();
      const r = await login(url, h.from, { realm: one.id, username: h.username, password: PASSWORD });
      if (r.status !== 200) throw new Error(`an idle login answered ${r.status}`);
      idle.push(r.ms);
    }
    rows.push({ build: name, attack: 'idle', honest: idle, answers: new Map(), hashes: 0, guesses: 0, floodS: 0 });

    const attacks = [
      { attack: 'all at one account', realm: one.id, honest: oneHonest, net: '198.51.100', target: () => 'victim' },
      {
        attack: 'each at another name',
        realm: fresh.id,
        honest: honestCallers(fresh.users),
        net: '198.18.0',
        target: (s: number, i: number) => `nobody-${s}-${i}`,
      },
    ];
    for (const a of attacks) {
      const before = scryptCalls(scryptDir);
      const row: Row = { build: name, attack: a.attack, honest: [], answers: new Map(), hashes: 0, guesses: 0, floodS: 0 };
      for (let w = 0; w < waves; w++) {
        const r = await wave(
          url,
          a.realm,
          (s) => `${a.net}.${10 + s}`,
          (s, i) => a.target(s, i + w * 100),
          `${w}`,
          PASSWORD,
          a.honest,
          MAX_HONEST,
        );
        row.honest.push(...r.honestMs);
        for (const [status, n] of r.answers) row.answers.set(status, (row.answers.get(status) ?? 0) + n);
        row.guesses += 60;
        row.floodS += r.ms / 1000;
      }
      row.hashes = scryptCalls(scryptDir) - before - row.honest.length;
      rows.push(row);
    }
    await stopChild(server);
    return rows;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const loadBefore = loadAverage();
  process.on('exit', () => killAllSync());
  const waves = intEnv('BENCH_WAVES', 5, 1);
  const idleLogins = intEnv('BENCH_IDLE_LOGINS', 10, 1);
  const builds = [
    ...(process.env.BENCH_BEFORE
      ? [{ name: `before (${commitOf(process.env.BENCH_BEFORE)})`, root: resolve(process.env.BENCH_BEFORE) }]
      : []),
    { name: `this build (${commitOf(ROOT)})`, root: ROOT },
  ];
  const rows: Row[] = [];
  for (const b of builds) rows.push(...(await measure(b.name, b.root, waves, idleLogins)));

  const out = process.stdout;
  out.write(
    `node ${process.version}, load average before ${loadBefore}, after ${loadAverage()}, WORKERS=${process.env.WORKERS ?? 'default'}, real scrypt N=2^17, `,
  );
  out.write(`${waves} waves of 15 addresses x 4 wrong passwords, up to ${MAX_HONEST} honest logins beside each wave\n\n`);
  out.write(
    '| build | flood | honest logins | honest p50 s | honest p99 s | honest max s | flood answers | scrypt hashes for the flood | flood took s |\n',
  );
  out.write('|---|---|---:|---:|---:|---:|---|---:|---:|\n');
  for (const r of rows) {
    const answers =
      [...r.answers]
        .sort(([x], [y]) => x - y)
        .map(([s, n]) => `${n}×${s}`)
        .join(', ') || '-';
    const hashes = r.guesses ? `${r.hashes} of ${r.guesses}` : '-';
    out.write(`| ${r.build} | ${r.attack} | ${r.honest.length} | ${ms(percentile(r.honest, 0.5))} | ${ms(percentile(r.honest, 0.99))} | `);
    out.write(`${ms(Math.max(...r.honest))} | ${answers} | ${hashes} | ${r.guesses ? r.floodS.toFixed(1) : '-'} |\n`);
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`bench:auth-flood-distributed failed: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
