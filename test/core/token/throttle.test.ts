import crypto from 'node:crypto';
import { join } from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { AuthenticationFailed } from '../../../core/token/errors';
import { sqliteTokenStore } from '../../../core/token/sqlite';
import { createFailureThrottle } from '../../../core/token/throttle';
import { RateLimited } from '../../../core/shared/errors';
import { testClock, testTokenCore } from '../../shared/helpers';

const memoryCounter = () => sqliteTokenStore(':memory:').failures;

describe('the failed-authentication throttle', () => {
  it('refuses a key past its limit until the window ends, telling when to retry', async () => {
    const clock = testClock();
    const t = createFailureThrottle({ counter: memoryCounter(), limit: 2, windowMs: 60_000, now: clock.now });
    await t.fail('a');
    await expect(t.check('a')).resolves.toBe(1);
    await t.fail('a');
    const err = await t.check('a').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimited);
    expect((err as RateLimited).retryAfterSeconds).toBe(60);
    await expect(t.check('b')).resolves.toBe(0);
    clock.advance(45_000);
    await expect(t.check('a')).rejects.toThrow(expect.objectContaining({ retryAfterSeconds: 15 }));
    clock.advance(15_000);
    await expect(t.check('a')).resolves.toBe(0);
  });

  it('is shared by every process using the same store (worker processes), and expired windows are pruned', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'throttle-'));
    const [one, two] = [sqliteTokenStore(join(dir, 'token.db')), sqliteTokenStore(join(dir, 'token.db'))];
    const clock = testClock();
    const a = createFailureThrottle({ counter: one.failures, limit: 2, windowMs: 60_000, now: clock.now });
    const b = createFailureThrottle({ counter: two.failures, limit: 2, windowMs: 60_000, now: clock.now });
    await a.fail('10.0.0.1');
    await b.fail('10.0.0.1');
    await expect(a.check('10.0.0.1')).rejects.toThrow(RateLimited);
    await expect(b.check('10.0.0.1')).rejects.toThrow(RateLimited);
    clock.advance(60_000);
    expect(await one.failures.prune(clock.now())).toBe(1);
    await expect(b.check('10.0.0.1')).resolves.toBe(0);
    await one.close();
    await two.close();
    rmSync(dir, { recursive: true, force: true });
  });
});

describe('reservations: an attempt in flight counts against the limit', () => {
  it('reserves at most the limit, atomically, and gives a place back on release', async () => {
    const clock = testClock();
    const t = createFailureThrottle({ counter: memoryCounter(), limit: 3, windowMs: 60_000, now: clock.now });
    const held = await Promise.all([t.reserve('a'), t.reserve('a'), t.reserve('a')]);
    await expect(t.reserve('a')).rejects.toThrow(RateLimited);
    await expect(t.check('a')).rejects.toThrow(RateLimited);
    await expect(t.reserve('b')).resolves.toBeDefined();
    await held[0].release();
    await held[0].release(); // a second release gives nothing more back
    const again = await t.reserve('a');
    await expect(t.reserve('a')).rejects.toThrow(RateLimited);
    await again.release();
    clock.advance(60_000);
    await expect(Promise.all([t.reserve('a'), t.reserve('a'), t.reserve('a')])).resolves.toHaveLength(3);
  });

  it('does not give back a place of a window that is over (the new window never goes below zero)', async () => {
    const clock = testClock();
    const t = createFailureThrottle({ counter: memoryCounter(), limit: 1, windowMs: 60_000, now: clock.now });
    const old = await t.reserve('a');
    clock.advance(60_000);
    const current = await t.reserve('a');
    await old.release();
    await expect(t.reserve('a')).rejects.toThrow(RateLimited);
    await current.release();
    await expect(t.reserve('a')).resolves.toBeDefined();
  });

  it('shares reservations between processes using the same store', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'throttle-'));
    const [one, two] = [sqliteTokenStore(join(dir, 'token.db')), sqliteTokenStore(join(dir, 'token.db'))];
    const clock = testClock();
    const a = createFailureThrottle({ counter: one.failures, limit: 2, windowMs: 60_000, now: clock.now });
    const b = createFailureThrottle({ counter: two.failures, limit: 2, windowMs: 60_000, now: clock.now });
    await a.reserve('10.0.0.9');
    await b.reserve('10.0.0.9');
    await expect(a.reserve('10.0.0.9')).rejects.toThrow(RateLimited);
    await expect(b.reserve('10.0.0.9')).rejects.toThrow(RateLimited);
    await one.close();
    await two.close();
    rmSync(dir, { recursive: true, force: true });
  });
});

describe('the token service under the throttle', () => {
  const setup = async () => {
    const clock = testClock();
    const core = await testTokenCore(clock, { authFailuresPerMinute: 3 });
    const realm = (await core.admin.createRealm({ name: 'main' })).id;
    const { client_secret } = await core.admin.createClient({ realm, clientId: 'svc' });
    await core.admin.createUser({ realm, username: 'ann', password: 'correct horse' });
    return { core, clock, realm, client_secret };
  };

  it('answers 429 to an address after its failures, before checking any secret, and lets other addresses in', async () => {
    const { core, clock, realm, client_secret } = await setup();
    const from = (clientAddress: string) => ({ clientAddress });
    for (let i = 0; i < 3; i++) {
      await expect(
        core.service.issueForClient({ realm, client_id: 'svc', client_secret: 'wrong' }, from('10.0.0.1')),
      ).rejects.toBeInstanceOf(AuthenticationFailed);
    }
    await expect(core.service.issueForClient({ realm, client_id: 'svc', client_secret }, from('10.0.0.1'))).rejects.toBeInstanceOf(
      RateLimited,
    );
    await expect(core.service.loginUser({ realm, username: 'ann', password: 'correct horse' }, from('10.0.0.1'))).rejects.toBeInstanceOf(
      RateLimited,
    );
    await expect(core.service.issueForClient({ realm, client_id: 'svc', client_secret }, from('10.0.0.2'))).resolves.toMatchObject({
      token_type: 'Bearer',
    });
    clock.advance(60_000);
    await expect(core.service.issueForClient({ realm, client_id: 'svc', client_secret }, from('10.0.0.1'))).resolves.toMatchObject({
      token_type: 'Bearer',
    });
    await core.close();
  });

  it('hashes no more wrong passwords sent in parallel from one address than its limit; the rest get 429', async () => {
    const { core, realm } = await setup();
    const scrypt = jest.spyOn(crypto, 'scrypt');
    const settled = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        core.service.loginUser({ realm, username: 'ann', password: `guess ${i}` }, { clientAddress: '10.0.0.4' }),
      ),
    );
    const reasons = settled.map((s) => (s.status === 'rejected' ? s.reason : s.value));
    expect(reasons.filter((r) => r instanceof AuthenticationFailed)).toHaveLength(3);
    expect(reasons.filter((r) => r instanceof RateLimited)).toHaveLength(17);
    expect(scrypt).toHaveBeenCalledTimes(3);
    scrypt.mockRestore();
    await core.close();
  });

  it('counts parallel wrong client secrets too (a keyed hash each), 429 past the limit', async () => {
    const { core, realm } = await setup();
    const settled = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        core.service.issueForClient(
          { realm, client_id: i % 2 ? 'svc' : 'nobody', client_secret: `guess ${i}` },
          { clientAddress: '10.0.0.5' },
        ),
      ),
    );
    const reasons = settled.map((s) => (s.status === 'rejected' ? s.reason : s.value));
    expect(reasons.filter((r) => r instanceof AuthenticationFailed)).toHaveLength(3);
    expect(reasons.filter((r) => r instanceof RateLimited)).toHaveLength(17);
    await core.close();
  });

  it('gives the place of a login that succeeds back: parallel logins up to the limit, again and again, and any number of keyed client checks', async () => {
    const { core, realm, client_secret } = await setup();
    const from = { clientAddress: '10.0.0.6' };
    for (let round = 0; round < 3; round++) {
      const logins = await Promise.all(
        Array.from({ length: 3 }, () => core.service.loginUser({ realm, username: 'ann', password: 'correct horse' }, from)),
      );
      expect(logins.every((t) => t.token_type === 'Bearer')).toBe(true);
    }
    const tokens = await Promise.all(
      Array.from({ length: 20 }, () => core.service.issueForClient({ realm, client_id: 'svc', client_secret }, from)),
    );
    expect(tokens.every((t) => t.token_type === 'Bearer')).toBe(true);
    expect((await core.store.failures.count('10.0.0.6', Date.UTC(2026, 0, 1))).count).toBe(0);
    await core.close();
  });

  it('counts a check waiting for the hashing pool, or for an identical check, against the limit', async () => {
    const { core, realm } = await setup();
    const scrypt = jest.spyOn(crypto, 'scrypt');
    const settled = await Promise.allSettled(
      Array.from({ length: 10 }, () =>
        core.service.loginUser({ realm, username: 'ann', password: 'the same guess' }, { clientAddress: '10.0.0.7' }),
      ),
    );
    const reasons = settled.map((s) => (s.status === 'rejected' ? s.reason : s.value));
    expect(reasons.filter((r) => r instanceof AuthenticationFailed)).toHaveLength(3);
    expect(reasons.filter((r) => r instanceof RateLimited)).toHaveLength(7);
    expect(scrypt).toHaveBeenCalledTimes(1);
    scrypt.mockRestore();
    await core.close();
  });

  it('does not count successful authentications', async () => {
    const { core, realm, client_secret } = await setup();
    for (let i = 0; i < 5; i++) {
      await expect(
        core.service.issueForClient({ realm, client_id: 'svc', client_secret }, { clientAddress: '10.0.0.3' }),
      ).resolves.toBeDefined();
    }
    await core.close();
  });
});
