import { openTokenCore, type TokenCoreOptions } from '../../../core/token';
import { sqliteTokenStores } from '../../../core/token/sqlite';
import { AuthenticationFailed } from '../../../core/token/errors';
import type { SecretHasher } from '../../../core/token/secrets';
import { fastHasher, PUBLIC_URL, pooledKeys, testClock } from '../../shared/helpers';

const PASSWORD = 'correct horse battery';

/** fastHasher, counting the checks it was asked for whose secret starts with `wrong`. */
function countingHasher() {
  let wrong = 0;
  const hasher: SecretHasher = {
    hash: (s) => fastHasher.hash(s),
    outdated: (s) => fastHasher.outdated(s),
    matches: (secret, stored) => {
      if (secret.startsWith('wrong')) wrong++;
      return fastHasher.matches(secret, stored);
    },
  };
  return { hasher, wrong: () => wrong };
}

/** A core with realm `main` and user `alice`; a source is `from(n)`, 10.7.0.n. */
async function world(opts: Partial<TokenCoreOptions> = {}) {
  const clock = testClock();
  const counted = countingHasher();
  const core = await openTokenCore({
    stores: sqliteTokenStores(':memory:'),
    publicUrl: PUBLIC_URL,
    clock,
    audience: ['account'],
    hasher: counted.hasher,
    generateKey: pooledKeys,
    ...opts,
  });
  const realm = (await core.admin.createRealm({ name: 'main' })).id;
  await core.admin.createUser({ realm, username: 'alice', password: PASSWORD });
  const login = (password: string, from: number, username = 'alice') =>
    core.service.loginUser({ realm, username, password }, { clientAddress: `10.7.0.${from}` });
  const refused = (p: Promise<unknown>) => expect(p).rejects.toBeInstanceOf(AuthenticationFailed);
  const locked = async () => (await core.admin.listUsers(realm)).find((u) => u.username === 'alice')!.locked;
  return { core, clock, realm, login, refused, locked, wrong: counted.wrong };
}

describe('a lockout an attacker cannot aim (per account and source)', () => {
  it('lets the right password in from a clean source after six wrong ones from another (the default settings)', async () => {
    const w = await world();
    for (let i = 0; i < 6; i++) await w.refused(w.login(`wrong ${i}`, 66));
    await expect(w.login(PASSWORD, 7)).resolves.toMatchObject({ token_type: 'Bearer' });
    expect(await w.locked()).toBe(false);
    await w.core.close();
  });

  it('lets the right password in from a clean source after 60 wrong ones sent at once from 15 sources (4 each)', async () => {
    const w = await world();
    await Promise.all(Array.from({ length: 60 }, (_, i) => w.refused(w.login(`wrong ${i}`, 100 + (i % 15)))));
    await expect(w.login(PASSWORD, 7)).resolves.toMatchObject({ token_type: 'Bearer' });
    await w.core.close();
  });

  it('refuses the source that reached the threshold, even its right password, without hashing, until the window passes', async () => {
    const w = await world({ lockout: { threshold: 3, accountThreshold: 50, seconds: 600 } });
    for (let i = 0; i < 3; i++) await w.refused(w.login(`wrong ${i}`, 66));
    for (let i = 3; i < 10; i++) await w.refused(w.login(`wrong ${i}`, 66));
    await w.refused(w.login(PASSWORD, 66));
    expect(w.wrong()).toBe(3);
    await expect(w.login(PASSWORD, 7)).resolves.toMatchObject({ token_type: 'Bearer' });
    w.clock.advance(600_000);
    await expect(w.login(PASSWORD, 66)).resolves.toMatchObject({ token_type: 'Bearer' });
    await w.core.close();
  });

  it('refuses a locked source even a password it had right a moment ago (remembered, so not hashed again)', async () => {
    const w = await world({ lockout: { threshold: 3, accountThreshold: 6, seconds: 600 } });
    await expect(w.login(PASSWORD, 66)).resolves.toMatchObject({ token_type: 'Bearer' });
    await expect(w.login(PASSWORD, 7)).resolves.toMatchObject({ token_type: 'Bearer' });
    for (let i = 0; i < 3; i++) await w.refused(w.login(`wrong ${i}`, 66));
    await w.refused(w.login(PASSWORD, 66));
    await expect(w.login(PASSWORD, 7)).resolves.toMatchObject({ token_type: 'Bearer' });
    for (let i = 3; i < 6; i++) await w.refused(w.login(`wrong ${i}`, 67));
    await w.refused(w.login(PASSWORD, 7));
    await w.core.close();
  });

  it('counts an IPv6 /64 as one source', async () => {
    const w = await world({ lockout: { threshold: 3, accountThreshold: 50, seconds: 600 } });
    const from = (address: string, password: string) =>
      w.core.service.loginUser({ realm: w.realm, username: 'alice', password }, { clientAddress: address });
    for (const host of ['1', '2', 'abcd:1', 'ffff:ffff:ffff']) await w.refused(from(`2001:db8:1:2::${host}`, `wrong ${host}`));
    expect(w.wrong()).toBe(3);
    await w.refused(from('2001:db8:1:2:9::1', PASSWORD));
    await expect(from('2001:db8:1:3::1', PASSWORD)).resolves.toMatchObject({ token_type: 'Bearer' });
    await w.core.close();
  });
});

describe('the much higher bound per account', () => {
  it('lets a clean source in below it, locks the account for every source once its failures from all sources reach it, and lifts with the window or a new password', async () => {
    const w = await world({ lockout: { threshold: 3, accountThreshold: 10, seconds: 600 } });
    for (let i = 0; i < 9; i++) await w.refused(w.login(`wrong ${i}`, 100 + Math.floor(i / 2)));
    await expect(w.login(PASSWORD, 7)).resolves.toMatchObject({ token_type: 'Bearer' });
    expect(await w.locked()).toBe(false);
    // A success does not wipe the account's count (only its own source's): the tenth failure locks it.
    await w.refused(w.login('wrong 9', 110));
    expect(await w.locked()).toBe(true);
    await w.refused(w.login(PASSWORD, 7));
    await w.refused(w.login(PASSWORD, 8));
    w.clock.advance(600_000);
    expect(await w.locked()).toBe(false);
    await expect(w.login(PASSWORD, 8)).resolves.toMatchObject({ token_type: 'Bearer' });

    for (let i = 0; i < 10; i++) await w.refused(w.login(`wrong ${i}`, 120 + Math.floor(i / 2)));
    await w.refused(w.login(PASSWORD, 9));
    await w.core.admin.setPassword(w.realm, 'alice', 'a new password 2');
    expect(await w.locked()).toBe(false);
    await expect(w.login('a new password 2', 9)).resolves.toMatchObject({ token_type: 'Bearer' });
    await w.core.close();
  });

  it('bounds the hashes spent on one account: 40 sources with 3 wrong passwords each at once hash at most the bound', async () => {
    const w = await world({ lockout: { threshold: 5, accountThreshold: 10, seconds: 600 } });
    await Promise.all(Array.from({ length: 120 }, (_, i) => w.refused(w.login(`wrong ${i}`, 100 + (i % 40)))));
    expect(w.wrong()).toBe(10);
    await w.refused(w.login(PASSWORD, 7));
    await w.core.close();
  });

  it('locks a name no account has exactly as an account, so locks do not tell which accounts exist', async () => {
    const w = await world({ lockout: { threshold: 2, accountThreshold: 4, seconds: 600 } });
    for (const username of ['alice', 'nobody']) {
      for (let i = 0; i < 6; i++) await w.refused(w.login(`wrong ${username} ${i}`, 100 + Math.floor(i / 2), username));
    }
    expect(w.wrong()).toBe(8);
    await w.core.close();
  });
});
