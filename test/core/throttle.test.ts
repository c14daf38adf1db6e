import { join } from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { AuthenticationFailed } from '../../core/token/errors';
import { sqliteTokenStore } from '../../core/token/sqlite-store';
import { createFailureThrottle } from '../../core/token/throttle';
import { RateLimited } from '../../core/errors';
import { testClock, testTokenCore } from '../helpers';

const memoryCounter = () => sqliteTokenStore(':memory:').failures;

describe('the failed-authentication throttle', () => {
  it('refuses a key past its limit until the window ends, telling when to retry', () => {
    const clock = testClock();
    const t = createFailureThrottle({ counter: memoryCounter(), limit: 2, windowMs: 60_000, now: clock.now });
    t.fail('a');
    t.check('a');
    t.fail('a');
    let err: unknown;
    try {
      t.check('a');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(RateLimited);
    expect((err as RateLimited).retryAfterSeconds).toBe(60);
    expect(() => t.check('b')).not.toThrow();
    clock.advance(45_000);
    expect(() => t.check('a')).toThrow(expect.objectContaining({ retryAfterSeconds: 15 }));
    clock.advance(15_000);
    expect(() => t.check('a')).not.toThrow();
  });

  it('is shared by every process using the same store (worker processes), and expired windows are pruned', () => {
    const dir = mkdtempSync(join(tmpdir(), 'throttle-'));
    const [one, two] = [sqliteTokenStore(join(dir, 'token.db')), sqliteTokenStore(join(dir, 'token.db'))];
    const clock = testClock();
    const a = createFailureThrottle({ counter: one.failures, limit: 2, windowMs: 60_000, now: clock.now });
    const b = createFailureThrottle({ counter: two.failures, limit: 2, windowMs: 60_000, now: clock.now });
    a.fail('10.0.0.1');
    b.fail('10.0.0.1');
    expect(() => a.check('10.0.0.1')).toThrow(RateLimited);
    expect(() => b.check('10.0.0.1')).toThrow(RateLimited);
    clock.advance(60_000);
    expect(one.failures.prune(clock.now())).toBe(1);
    expect(() => b.check('10.0.0.1')).not.toThrow();
    one.close();
    two.close();
    rmSync(dir, { recursive: true, force: true });
  });
});

describe('the token service under the throttle', () => {
  const setup = async () => {
    const clock = testClock();
    const core = testTokenCore(clock, { authFailuresPerMinute: 3 });
    const realm = (await core.admin.createRealm({ name: 'main' })).id;
    const { client_secret } = await core.admin.createClient({ realm, clientId: 'svc' });
    await core.admin.createUser({ realm, username: 'ann', password: 'correct horse' });
    return { core, clock, realm, client_secret };
  };

  it('answers 429 to an address after its failures, before checking any secret, and lets other addresses in', async () => {
    const { core, clock, realm, client_secret } = await setup();
    const from = (clientAddress: string) => ({ clientAddress });
    for (let i = 0; i < 3; i++) {
      await expect(core.service.issueForClient({ realm, client_id: 'svc', client_secret: 'wrong' }, from('10.0.0.1'))).rejects.toBeInstanceOf(AuthenticationFailed);
    }
    await expect(core.service.issueForClient({ realm, client_id: 'svc', client_secret }, from('10.0.0.1'))).rejects.toBeInstanceOf(RateLimited);
    await expect(core.service.loginUser({ realm, username: 'ann', password: 'correct horse' }, from('10.0.0.1'))).rejects.toBeInstanceOf(RateLimited);
    await expect(core.service.issueForClient({ realm, client_id: 'svc', client_secret }, from('10.0.0.2'))).resolves.toMatchObject({ token_type: 'Bearer' });
    clock.advance(60_000);
    await expect(core.service.issueForClient({ realm, client_id: 'svc', client_secret }, from('10.0.0.1'))).resolves.toMatchObject({ token_type: 'Bearer' });
    core.close();
  });

  it('does not count successful authentications', async () => {
    const { core, realm, client_secret } = await setup();
    for (let i = 0; i < 5; i++) {
      await expect(core.service.issueForClient({ realm, client_id: 'svc', client_secret }, { clientAddress: '10.0.0.3' })).resolves.toBeDefined();
    }
    core.close();
  });
});
