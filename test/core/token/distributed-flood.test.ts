import { RateLimited } from '../../../core/shared/errors';
import { createFairPool } from '../../../core/shared/fair-pool';
import { hashingPoolOptions } from '../../../core/token/admission';
import { openTokenCore, type TokenCoreOptions } from '../../../core/token';
import { sqliteTokenStores } from '../../../core/token/sqlite';
import { AuthenticationFailed } from '../../../core/token/errors';
import type { SecretHasher } from '../../../core/token/secrets';
import { fastHasher, PUBLIC_URL, pooledKeys, testClock } from '../../shared/helpers';

const PASSWORD = 'correct horse battery';

/**
 * fastHasher recording the secrets in the order their hashes started (the pool runs one at a
 * time, so this is the order the pool served them), each held until `open()` when `gated`.
 */
function orderedHasher() {
  const started: string[] = [];
  let open!: () => void;
  let gate = new Promise<void>((resolve) => (open = resolve));
  const hasher: SecretHasher = {
    hash: (s) => fastHasher.hash(s),
    outdated: (s) => fastHasher.outdated(s),
    matches: async (secret, stored) => {
      started.push(secret);
      await gate;
      return fastHasher.matches(secret, stored);
    },
  };
  return {
    hasher,
    started,
    open: () => open(),
    close: () => void (gate = new Promise<void>((resolve) => (open = resolve))),
    count: (prefix: string) => started.filter((s) => s.startsWith(prefix)).length,
  };
}

const until = async (done: () => boolean) => {
  while (!done()) await new Promise((resolve) => setImmediate(resolve));
};

/** A core as the platform runs it (per-source limit 30 a minute, one hash at a time), realm `main`, users victim, honest-0..3. */
async function world(opts: Partial<TokenCoreOptions> = {}) {
  const clock = testClock();
  const h = orderedHasher();
  h.open();
  const pool = createFairPool(hashingPoolOptions(1));
  const core = await openTokenCore({
    stores: sqliteTokenStores(':memory:'),
    publicUrl: PUBLIC_URL,
    clock,
    audience: ['account'],
    hasher: h.hasher,
    generateKey: pooledKeys,
    authFailuresPerMinute: 30,
    pool,
    ...opts,
  });
  const realm = (await core.admin.createRealm({ name: 'main' })).id;
  for (const username of ['victim', 'honest-0', 'honest-1', 'honest-2', 'honest-3'])
    await core.admin.createUser({ realm, username, password: PASSWORD });
  h.started.length = 0;
  const login = (username: string, password: string, from: string) =>
    core.service.loginUser({ realm, username, password }, { clientAddress: from });
  /** 15 sources x 4 wrong passwords at once; `target(source, i)` names the account. */
  const wave = (tag: string, target: (source: number, i: number) => string) =>
    Array.from({ length: 60 }, (_, i) =>
      login(target(i % 15, i), `wrong ${tag} ${i}`, `198.51.100.${10 + (i % 15)}`).then(
        () => 'signed in',
        (err: unknown) => (err instanceof AuthenticationFailed ? 401 : err instanceof RateLimited ? 429 : err),
      ),
    );
  return { core, clock, realm, pool, h, login, wave };
}

describe('an honest login during a password flood from many sources', () => {
  it('is hashed right after the running hash while 15 sources x 4 wrong passwords for one account wait (it queued behind 15 before)', async () => {
    const w = await world();
    w.h.close();
    const flood = w.wave('a', () => 'victim');
    await until(() => w.pool.load().running === 1 && w.pool.load().waiting === 59);
    const honest = w.login('honest-0', PASSWORD, '203.0.113.7');
    await until(() => w.pool.load().waiting === 60);
    w.h.open();
    await expect(honest).resolves.toMatchObject({ token_type: 'Bearer' });
    expect(w.h.started.indexOf(PASSWORD)).toBe(1);
    expect(await Promise.all(flood)).toEqual(Array(60).fill(401));
    await w.core.close();
  });

  it('in a first wave of guesses at fresh names from fresh sources (credential stuffing), is hashed right after the running hash', async () => {
    const w = await world();
    w.h.close();
    const flood = w.wave('s', (s, i) => `stuffed-first-${s}-${i}`);
    await until(() => w.pool.load().waiting === 59);
    const honest = w.login('honest-2', PASSWORD, '203.0.113.12');
    await until(() => w.pool.load().waiting === 60);
    w.h.open();
    await expect(honest).resolves.toMatchObject({ token_type: 'Bearer' });
    expect(w.h.started.indexOf(PASSWORD)).toBe(1);
    expect(await Promise.all(flood)).toEqual(Array(60).fill(401));
    await w.core.close();
  });

  it('in a second wave of guesses at fresh names (credential stuffing), is hashed right after the running hash', async () => {
    const w = await world();
    expect(await Promise.all(w.wave('c', (s, i) => `stuffed-${s}-${i}`))).toEqual(Array(60).fill(401));
    w.h.close();
    w.h.started.length = 0;
    const second = w.wave('d', (s, i) => `stuffed-again-${s}-${i}`);
    await until(() => w.pool.load().waiting === 59);
    const honest = w.login('honest-1', PASSWORD, '203.0.113.9');
    await until(() => w.pool.load().waiting === 60);
    w.h.open();
    await expect(honest).resolves.toMatchObject({ token_type: 'Bearer' });
    expect(w.h.started.indexOf(PASSWORD)).toBe(1);
    await Promise.all(second);
    await w.core.close();
  });
});

describe('the hashes a realm spends on failing passwords', () => {
  it('are bounded per minute for sources with failures of their own (429 before hashing); a clean source is still served', async () => {
    const w = await world({ realmFailuresPerMinute: 20 });
    // Wave 1: every source is clean at first: one guess each is hashed whatever the realm's count; 20 more fill it.
    const first = await Promise.all(w.wave('e', (s, i) => `name-${s}-${i}`));
    expect(w.h.count('wrong e')).toBeLessThanOrEqual(20 + 15);
    expect(first.filter((s) => s === 429).length).toBe(60 - w.h.count('wrong e'));
    // Waves 2 and 3: every flooding source has failures: nothing more is hashed this minute, and
    // nothing is written about the accounts they name (no reservation of an account's count).
    const reserved = jest.spyOn(w.core.store.failures, 'reserve');
    for (const tag of ['f', 'g']) expect(await Promise.all(w.wave(tag, (s, i) => `name-${tag}-${s}-${i}`))).toEqual(Array(60).fill(429));
    expect(w.h.count('wrong f') + w.h.count('wrong g')).toBe(0);
    expect(reserved.mock.calls.filter(([key]) => !key.startsWith('198.51.100.') && !key.startsWith('r|'))).toEqual([]);
    reserved.mockRestore();
    // A clean source is checked: its right password signs in, its wrong one is hashed (and refused).
    await expect(w.login('honest-2', PASSWORD, '203.0.113.10')).resolves.toMatchObject({ token_type: 'Bearer' });
    await expect(w.login('honest-3', 'wrong h', '203.0.113.11')).rejects.toBeInstanceOf(AuthenticationFailed);
    expect(w.h.count('wrong h')).toBe(1);
    // The next minute, the realm's count starts afresh.
    w.clock.advance(60_000);
    expect(await Promise.all(w.wave('i', (s, i) => `name-i-${s}-${i}`))).toContain(401);
    await w.core.close();
  });

  it('are bounded per account across the whole realm, whatever the number of sources', async () => {
    const w = await world({ lockout: { threshold: 5, accountThreshold: 30, seconds: 900 } });
    for (const tag of ['j', 'k', 'l']) await Promise.all(w.wave(tag, () => 'victim'));
    expect(w.h.count('wrong')).toBe(30);
    await w.core.close();
  });
});
