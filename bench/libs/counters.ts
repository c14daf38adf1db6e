/**
 * (c) Limit counters for `npm run bench:libs`: the models core's counters (a key's requests per
 * minute, its token budget; core/models/sqlite and core/models/redis limit-counters.ts) against
 * rate-limiter-flexible's RateLimiterSQLite (on the same better-sqlite3) and RateLimiterRedis (on
 * the same ioredis), RateLimiterMemory as a reference. Each admission is awaited, one after another,
 * then 32 in flight (Redis); atomicity is 200 takes at once over two connections with a limit of 50;
 * the window is what each admits around a window's edge.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { Redis } from 'ioredis';
import { openModelsDb } from '../../core/models/sqlite/db';
import { sqliteLimitCounters } from '../../core/models/sqlite/limit-counters';
import { redisLimitCounters } from '../../core/models/redis/limit-counters';
import type { LimitCounters } from '../../core/models/ports';
import { redisFailureCounter } from '../../core/token/redis/failures';
import { sqliteTokenStore } from '../../core/token/sqlite';
import type { FailureCounter } from '../../core/token/ports';
import { ratio, sideBySide, us, type Pair } from './timing';

export const RLF_PACKAGES = { 'rate-limiter-flexible': '11.4.0' };

// The parts of rate-limiter-flexible used here.
interface Limiter {
  consume(key: string, points?: number): Promise<unknown>;
  penalty(key: string, points?: number): Promise<unknown>;
}
type LimiterClass = new (opts: Record<string, unknown>) => Limiter;
interface Rlf {
  RateLimiterMemory: LimiterClass;
  RateLimiterRedis: LimiterClass;
  RateLimiterSQLite: LimiterClass;
}

const WINDOW_MS = 60_000;
const KEYS = 100;

/** true when admitted: rate-limiter-flexible rejects with its result when the points are used up. */
const consumed = (l: Limiter, key: string) =>
  l.consume(key).then(
    () => true,
    (r: unknown) => {
      if (r instanceof Error) throw r;
      return false;
    },
  );
const taken = (c: LimitCounters, key: string, limit: number, windowMs = WINDOW_MS, now = Date.now()) =>
  c.takeRequest(key, limit, windowMs, now).then((a) => a.admitted);

/** Runs `op` `inFlight` at a time per call, so one call of the result is `inFlight` operations. */
const batch = (inFlight: number, op: (i: number) => Promise<unknown>) => () =>
  Promise.all(Array.from({ length: inFlight }, (_, i) => op(i)));

interface Side {
  name: string;
  ours: LimitCounters;
  failures: FailureCounter;
  theirs: (points: number, prefix: string, seconds?: number) => Limiter;
}

/** The token service's failed-authentication window (LOCKOUT_SECONDS' default). */
const FAILURE_WINDOW_MS = 900_000;
const reserved = (c: FailureCounter, key: string, limit: number) =>
  c.reserve(key, limit, FAILURE_WINDOW_MS, Date.now()).then((w) => w.reserved);

export async function compareCounters(modules: string, rounds: number, ms: number, print: (s: string) => void) {
  const rlf = require(join(modules, 'rate-limiter-flexible')) as Rlf;
  const dir = mkdtempSync(join(tmpdir(), 'bench-libs-'));
  const db = openModelsDb(join(dir, 'models.db'));
  const rlfDb = new Database(join(dir, 'models.db'));
  rlfDb.pragma('journal_mode = WAL');
  const tokenStore = sqliteTokenStore(join(dir, 'token.db'));
  let tables = 0;
  const sides: Side[] = [
    {
      name: 'SQLite (better-sqlite3, one file, WAL)',
      ours: sqliteLimitCounters(db),
      failures: tokenStore.failures,
      theirs: (points, _prefix, seconds = WINDOW_MS / 1000) =>
        new rlf.RateLimiterSQLite({
          storeClient: rlfDb,
          storeType: 'better-sqlite3',
          tableName: `rlf${tables++}`,
          points,
          duration: seconds,
        }),
    },
  ];
  const redisUrl = process.env.REDIS_URL;
  const redis = redisUrl ? new Redis(redisUrl, { lazyConnect: false }) : undefined;
  const redis2 = redisUrl ? new Redis(redisUrl) : undefined;
  const run = `bench-libs:${process.pid}:${Date.now()}:`;
  if (redis) {
    sides.push({
      name: 'Redis (ioredis)',
      ours: redisLimitCounters(redis, `${run}ours:`),
      failures: redisFailureCounter(redis, { prefix: `${run}failures:` }),
      theirs: (points, prefix, seconds = WINDOW_MS / 1000) =>
        new rlf.RateLimiterRedis({ storeClient: redis, keyPrefix: `${run}rlf:${prefix}`, points, duration: seconds }),
    });
  }
  print('\n## (c) Limit counters: core/models counters vs rate-limiter-flexible\n\n');
  if (!redis) print('(REDIS_URL is not set: Redis is not measured.)\n\n');
  // A table is created asynchronously by the constructor.
  const settle = () => sleep(50);

  print('Per operation: CPU time of this process for SQLite (in process), wall time for Redis (a server does the work).\n\n');
  print('| store | operation | ours | rate-limiter-flexible | rlf/ours |\n|---|---|---|---|---|\n');
  let n = 0;
  const row = (store: string, op: string, r: Pair) => {
    const of = store.startsWith('Redis') ? 'wallUs' : 'cpuUs';
    print(`| ${store} | ${op} | ${us(r.ours[of])} | ${us(r.theirs[of])} | ${ratio(r, of)} |\n`);
  };
  for (const side of sides) {
    const open = side.theirs(1e9, 'open');
    const full = side.theirs(10, 'full');
    const budget = side.theirs(1e12, 'budget');
    const logins = side.theirs(1e9, 'logins', FAILURE_WINDOW_MS / 1000);
    const locked = side.theirs(5, 'locked', FAILURE_WINDOW_MS / 1000);
    await settle();
    for (let i = 0; i < 20; i++)
      await Promise.all([
        taken(side.ours, 'full', 10),
        consumed(full, 'full'),
        reserved(side.failures, 'locked', 5),
        consumed(locked, 'locked'),
      ]);
    row(
      side.name,
      `take a request, admitted (${KEYS} keys)`,
      await sideBySide(
        () => taken(side.ours, `k${n++ % KEYS}`, 1e9),
        () => consumed(open, `k${n++ % KEYS}`),
        rounds,
        ms,
      ),
    );
    row(
      side.name,
      'take a request, refused (limit reached)',
      await sideBySide(
        () => taken(side.ours, 'full', 10),
        () => consumed(full, 'full'),
        rounds,
        ms,
      ),
    );
    const period = Date.UTC(2026, 0, 1);
    row(
      side.name,
      "count a call's tokens (budget)",
      await sideBySide(
        () => side.ours.spendTokens(`k${n++ % KEYS}`, period, 120),
        () => budget.penalty(`k${n++ % KEYS}:${period}`, 120),
        rounds,
        ms,
      ),
    );
    row(
      side.name,
      `failed login: reserve a place (${KEYS} keys, token core)`,
      await sideBySide(
        () => reserved(side.failures, `ip${n++ % KEYS}`, 1e9),
        () => consumed(logins, `ip${n++ % KEYS}`),
        rounds,
        ms,
      ),
    );
    row(
      side.name,
      'failed login: refused (window full, token core)',
      await sideBySide(
        () => reserved(side.failures, 'locked', 5),
        () => consumed(locked, 'locked'),
        rounds,
        ms,
      ),
    );
    if (side.name.startsWith('Redis')) {
      const r = await sideBySide(
        batch(32, () => taken(side.ours, `k${n++ % KEYS}`, 1e9)),
        batch(32, () => consumed(open, `k${n++ % KEYS}`)),
        rounds,
        ms,
      );
      const per = (c: { wallUs: number; cpuUs: number }) => ({ wallUs: c.wallUs / 32, cpuUs: c.cpuUs / 32 });
      row(side.name, 'take a request, admitted, 32 in flight (per request)', { ours: per(r.ours), theirs: per(r.theirs) });
    }
  }
  const memory = new rlf.RateLimiterMemory({ points: 1e9, duration: WINDOW_MS / 1000 });
  const memRate = await sideBySide(
    () => consumed(memory, `k${n++ % KEYS}`),
    () => consumed(memory, `k${n++ % KEYS}`),
    1,
    ms,
  );
  print(`| memory (one process only) | take a request, admitted | - | ${us(memRate.theirs.cpuUs)} | - |\n`);

  if (redis && redis2) {
    print('\n200 takes at once over two Redis connections (two replicas), limit 50: ');
    const oursA = redisLimitCounters(redis, `${run}atomic:`);
    const oursB = redisLimitCounters(redis2, `${run}atomic:`);
    const rlfA = new rlf.RateLimiterRedis({ storeClient: redis, keyPrefix: `${run}atomic-rlf`, points: 50, duration: 60 });
    const rlfB = new rlf.RateLimiterRedis({ storeClient: redis2, keyPrefix: `${run}atomic-rlf`, points: 50, duration: 60 });
    const ours = (await Promise.all(Array.from({ length: 200 }, (_, i) => taken(i % 2 ? oursA : oursB, 'one', 50)))).filter(Boolean).length;
    const theirs = (await Promise.all(Array.from({ length: 200 }, (_, i) => consumed(i % 2 ? rlfA : rlfB, 'one')))).filter(Boolean).length;
    print(`ours admitted ${ours}, rate-limiter-flexible ${theirs}.\n`);
  }

  // Limit 5 per second: one request at t, four at t + 900 ms, five at t + 1050 ms.
  print('\nWindow, limit 5 per 1 s: 1 request at t, 4 at t + 900 ms, 5 at t + 1,050 ms. Admitted within those 150 ms: ');
  const edge = sqliteLimitCounters(db);
  const t = Date.now();
  let oursEdge = 0;
  await taken(edge, 'edge', 5, 1000, t);
  for (let i = 0; i < 4; i++) oursEdge += Number(await taken(edge, 'edge', 5, 1000, t + 900));
  for (let i = 0; i < 5; i++) oursEdge += Number(await taken(edge, 'edge', 5, 1000, t + 1050));
  const fixed = new rlf.RateLimiterMemory({ points: 5, duration: 1 });
  const start = Date.now();
  let theirsEdge = 0;
  await consumed(fixed, 'edge');
  await sleep(900 - (Date.now() - start));
  for (let i = 0; i < 4; i++) theirsEdge += Number(await consumed(fixed, 'edge'));
  await sleep(1050 - (Date.now() - start));
  for (let i = 0; i < 5; i++) theirsEdge += Number(await consumed(fixed, 'edge'));
  print(`ours (sliding window) ${oursEdge}, rate-limiter-flexible (fixed window) ${theirsEdge}.\n`);

  if (redis) {
    // What this run left in Redis (the sets and counts expire by themselves too).
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `*${run}*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length) await redis.del(...keys);
    } while (cursor !== '0');
  }
  redis?.disconnect();
  redis2?.disconnect();
  await tokenStore.close();
  rlfDb.close();
  db.close();
  rmSync(dir, { recursive: true, force: true });
}
