import { openTokenCore } from '../../core/token';
import { AuthenticationFailed } from '../../core/token/errors';
import { createFailureThrottle } from '../../core/token/throttle';
import { RateLimited } from '../../core/errors';
import { PUBLIC_URL, testClock } from '../helpers';

describe('the failed-authentication throttle', () => {
  it('refuses a key past its limit until the window ends, telling when to retry', () => {
    const clock = testClock();
    const t = createFailureThrottle({ limit: 2, windowMs: 60_000, now: clock.now });
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

  it('stays bounded in memory, dropping the oldest window', () => {
    const clock = testClock();
    const t = createFailureThrottle({ limit: 1, windowMs: 60_000, now: clock.now, maxKeys: 2 });
    t.fail('a');
    t.fail('b');
    t.fail('c');
    expect(() => t.check('a')).not.toThrow();
    expect(() => t.check('c')).toThrow(RateLimited);
  });
});

describe('the token service under the throttle', () => {
  const setup = async () => {
    const clock = testClock();
    const core = openTokenCore({ file: ':memory:', publicUrl: PUBLIC_URL, clock, authFailuresPerMinute: 3 });
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
