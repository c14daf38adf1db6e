/**
 * `node dist/bench/models/shared-state.js`: what the state the workers share in SQLite costs a call, per
 * operation (µs, p50 and p99 over BENCH_OPS operations, default 20,000), on a models.db and a
 * gateway.db in a temporary folder (WAL, synchronous NORMAL, as the server opens them). With
 * BENCH_PROCESSES=2 (default 1) that many processes run the same operations at once on the same
 * files, as two workers would. Needs `npm run build` first.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { answerCache } from '../../core/models/answers/cache';
import type { ChatStream } from '../../core/models/neutral';
import { keyLimits } from '../../core/models/keys/limits';
import { openModelsDb, sqliteAnswerStore, sqliteLimitCounters } from '../../core/models/sqlite';
import { systemClock } from '../../core/shared/clock';
import { openDatabase } from '../../core/shared/sqlite';
import { sqliteCache } from '../../core/shared/sqlite-cache';
import { GATEWAY_MIGRATIONS } from '../../gateway/persisted-queries';

const OPS = Number(process.env.BENCH_OPS || 20_000);

async function measure(name: string, op: (i: number) => unknown): Promise<string> {
  const times: number[] = [];
  for (let i = 0; i < OPS; i++) {
    const t = process.hrtime.bigint();
    await op(i);
    times.push(Number(process.hrtime.bigint() - t) / 1000);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))].toFixed(1);
  return `${name.padEnd(48)} p50 ${at(0.5).padStart(7)} µs   p99 ${at(0.99).padStart(7)} µs`;
}

const answer = (pieces: string[]): ChatStream => ({
  pieces: (async function* gen() {
    yield* pieces;
  })(),
  done: Promise.resolve({ finishReason: 'stop', usage: { promptTokens: 120, completionTokens: pieces.length } }),
});
const drain = async (s: ChatStream) => {
  for await (const _ of s.pieces);
};

async function run(dir: string, who: string): Promise<void> {
  const db = openModelsDb(join(dir, 'models.db'));
  const store = sqliteAnswerStore(db, { clock: systemClock, maxEntries: 10_000, maxBytes: 64 * 2 ** 20 });
  const cache = answerCache(store, { ttlMs: 3_600_000, maxEntryBytes: 2 ** 20 });
  // A typical short answer: ~60 pieces, ~1.2 KB.
  const pieces = Array.from({ length: 60 }, (_, i) => `word${i} `);
  await drain((await cache.through('hot', async () => answer(pieces))).stream);
  const limits = keyLimits({ clock: systemClock, counters: sqliteLimitCounters(db) });
  const key = (id: string, over: object) => ({
    id,
    prefix: '',
    name: '',
    tenant: 't',
    models: null,
    requestsPerMinute: null,
    tokenBudget: null,
    createdAt: new Date(0),
    revokedAt: null,
    expiresAt: null,
    ...over,
  });
  const gw = openDatabase(join(dir, 'gateway.db'), GATEWAY_MIGRATIONS);
  const apq = sqliteCache(gw, { table: 'persisted_queries', maxEntries: 1_000_000, maxBytes: 10 * 2 ** 20, now: Date.now });
  apq.set('apq:hot', '{ realm { name } }', null);

  const lines = [
    await measure('cache: lookup that misses', (i) => store.get(`${who}absent${i}`)),
    await measure('cache: lookup that hits (read only)', () => store.get('hot')),
    await measure('cache: a HIT through the cache, replayed', async () =>
      drain((await cache.through('hot', async () => answer(pieces))).stream),
    ),
    await measure('cache: a MISS recorded and written (store full)', async (i) =>
      drain((await cache.through(`${who}new${i}`, async () => answer(pieces))).stream),
    ),
    // rpm high enough that every call is admitted: the count-and-insert transaction each time.
    await measure('limits: admit, --rpm (one write transaction)', () => limits.admit(key(`${who}rpm`, { requestsPerMinute: 1_000_000 }))),
    await measure('limits: admit, --token-budget (one read)', () => limits.admit(key(`${who}budget`, { tokenBudget: 1e12 }))),
    await measure('limits: spend, --token-budget (one upsert)', () => limits.spend(key(`${who}budget`, { tokenBudget: 1e12 }), 100)),
    await measure('APQ: lookup by hash', () => apq.get('apq:hot')),
  ];
  process.stdout.write(`${who}\n${lines.join('\n')}\n`);
  db.close();
  gw.close();
}

async function main() {
  const procs = Number(process.env.BENCH_PROCESSES || 1);
  if (process.argv[2]) return run(process.argv[2], process.argv[3]);
  const dir = mkdtempSync(join(tmpdir(), 'bench-shared-state-'));
  try {
    // Files and migrations first, so the processes start on equal terms.
    openModelsDb(join(dir, 'models.db')).close();
    openDatabase(join(dir, 'gateway.db'), GATEWAY_MIGRATIONS).close();
    process.stdout.write(
      `${OPS} operations each, ${procs} process(es) at once; node ${process.version}; ${execFileSync('nproc').toString().trim()} cores\n`,
    );
    await Promise.all(
      Array.from(
        { length: procs },
        (_, i) =>
          new Promise<void>((resolve, reject) => {
            const child = spawn(process.execPath, [__filename, dir, `process ${i + 1}`], { stdio: ['ignore', 'inherit', 'inherit'] });
            child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`process ${i + 1} exited ${code}`))));
          }),
      ),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

void main();
