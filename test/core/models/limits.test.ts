import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RateLimited } from '../../../core/shared/errors';
import { openDatabase } from '../../../core/shared/sqlite';
import { MODELS_MIGRATIONS } from '../../../core/models/sqlite/schema';
import type { ApiKey } from '../../../core/models/keys/keys';
import { keyLimits } from '../../../core/models/keys/limits';
import { openModelsDb, sqliteLimitCounters } from '../../../core/models/sqlite';
import { testClock } from '../../shared/helpers';

const key = (over: Partial<ApiKey>): ApiKey => ({
  id: 'k1',
  prefix: 'lmk-abcdef',
  name: 'k',
  tenant: 't',
  models: null,
  requestsPerMinute: null,
  tokenBudget: null,
  createdAt: new Date(0),
  revokedAt: null,
  expiresAt: null,
  ...over,
});
const refusal = (p: Promise<void>) =>
  p.then(
    () => undefined,
    (err: unknown) => err as RateLimited,
  );
const setUp = (start?: number) => {
  const clock = testClock(start);
  const db = openModelsDb(':memory:');
  return { clock, db, limits: keyLimits({ clock, counters: sqliteLimitCounters(db) }) };
};

describe('key limits', () => {
  it('admits rpm requests in any minute, then refuses with the wait until the oldest leaves it', async () => {
    const { clock, limits } = setUp();
    const k = key({ requestsPerMinute: 3 });
    await limits.admit(k);
    clock.advance(20_000);
    await limits.admit(k);
    await limits.admit(k);
    const err = await refusal(limits.admit(k));
    expect(err).toBeInstanceOf(RateLimited);
    expect(err).toMatchObject({ code: 'rate_limit_exceeded', retryAfterSeconds: 40 });
    // Refusals are not counted: once the first request is a minute old, exactly one more fits.
    clock.advance(40_000);
    expect(await refusal(limits.admit(k))).toBeUndefined();
    expect(await refusal(limits.admit(k))).toMatchObject({ retryAfterSeconds: 20 });
    // Another key has its own count; a key without a limit is never refused.
    await limits.admit(key({ id: 'k2', requestsPerMinute: 1 }));
    for (let i = 0; i < 100; i++) await limits.admit(key({ id: 'k3' }));
  });

  it('refuses a key whose month of tokens is spent, until the next month', async () => {
    const { clock, limits } = setUp(Date.UTC(2026, 4, 31, 23, 59, 0));
    const k = key({ tokenBudget: 100 });
    await limits.admit(k);
    limits.spend(k, 60);
    await limits.admit(k);
    limits.spend(k, 40);
    const err = await refusal(limits.admit(k));
    expect(err).toMatchObject({ code: 'insufficient_quota', retryAfterSeconds: 60 });
    clock.advance(60_000);
    expect(await refusal(limits.admit(k))).toBeUndefined();
  });

  it('counts nothing for keys without limits, and prunes requests older than the minute', async () => {
    const { clock, db, limits } = setUp();
    const rows = () => db.prepare('SELECT (SELECT count(*) FROM rate_requests) + (SELECT count(*) FROM token_spend) AS n').pluck().get();
    const free = key({ id: 'free' });
    await limits.admit(free);
    limits.spend(free, 500);
    expect(rows()).toBe(0);
    await limits.admit(key({ requestsPerMinute: 5 }));
    clock.advance(60_000);
    expect(await limits.prune()).toBe(1);
  });

  it('starts the budget from the usage rows a models.db had before its counts existed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'limits-'));
    const file = join(dir, 'models.db');
    const old = openDatabase(file, MODELS_MIGRATIONS.slice(0, 3));
    const row = old.prepare(`INSERT INTO usage (at, key_id, tenant, model, route, status, latency_ms, tokens_in, tokens_out, words_sent,
      words_received, cache, guard, options, cost) VALUES (?, ?, 't', 'm', 'r', 200, 1, ?, ?, 0, 0, 'MISS', 'off', '{}', 0)`);
    row.run(Date.UTC(2026, 4, 1), 'k1', 30, 20);
    row.run(Date.UTC(2026, 4, 31, 23, 59, 59, 999), 'k1', 25, 0);
    row.run(Date.UTC(2026, 5, 1), 'k1', 7, 0);
    row.run(Date.UTC(2026, 4, 2), 'k2', 1, 1);
    old.close();
    const db = openModelsDb(file);
    const counters = sqliteLimitCounters(db);
    expect(await counters.tokensSpent('k1', Date.UTC(2026, 4, 1))).toBe(75);
    expect(await counters.tokensSpent('k1', Date.UTC(2026, 5, 1))).toBe(7);
    expect(await counters.tokensSpent('k2', Date.UTC(2026, 4, 1))).toBe(2);
    const clock = testClock(Date.UTC(2026, 4, 20));
    const limits = keyLimits({ clock, counters });
    expect(await refusal(limits.admit(key({ tokenBudget: 75 })))).toMatchObject({ code: 'insufficient_quota' });
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('fails open when the counts cannot be read (Redis down): the call goes on and the failure is reported', async () => {
    const clock = testClock();
    const down = () => Promise.reject(new Error('Connection is closed.'));
    const reported: string[] = [];
    const limits = keyLimits({
      clock,
      counters: { takeRequest: down, tokensSpent: down, spendTokens: down, pruneRequests: down },
      onError: (err) => reported.push((err as Error).message),
    });
    await expect(limits.admit(key({ requestsPerMinute: 1, tokenBudget: 10 }))).resolves.toBeUndefined();
    await expect(limits.admit(key({ requestsPerMinute: 1, tokenBudget: 10 }))).resolves.toBeUndefined();
    expect(reported).toEqual(Array(4).fill('Connection is closed.'));
  });
});
