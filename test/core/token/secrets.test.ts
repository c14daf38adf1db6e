import crypto, { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openTokenCore } from '../../../core/token';
import { sqliteTokenStores } from '../../../core/token/sqlite';
import { freeAttempt } from '../../../core/token/attempt';
import { keyedHasher } from '../../../core/token/keyed-hash';
import { OWASP_SCRYPT, scryptHasher } from '../../../core/token/secrets';
import { createSecretVerifier as create } from '../../../core/token/secret-verifier';
import { fastHasher, pooledKeys } from '../../shared/crypto-fixtures';
import { eventually } from '../../shared/wait';

// The verifier's behaviour does not depend on the cost: test it with cheap parameters.
const hashSecret = (secret: string) => fastHasher.hash(secret);
const keyed = keyedHasher(randomBytes(32));
const createSecretVerifier = (opts: { ttlMs?: number; now?: () => number } = {}) => {
  const v = create({ hasher: fastHasher, keyed, ...opts });
  // Unthrottled, not queued: these tests are about what is hashed and remembered.
  return {
    verify: (secret: string, stored: string | undefined | null, unknown: 'keyed' | 'slow' = 'slow') =>
      v.verify(freeAttempt, { realm: 'r', key: 'k' }, secret, stored, unknown),
  };
};
let stored: string;
let otherStored: string;

beforeAll(async () => {
  [stored, otherStored] = await Promise.all([hashSecret('correct secret'), hashSecret('another secret')]);
});

afterEach(() => jest.restoreAllMocks());

describe('hashSecret', () => {
  it('stores a self-describing scrypt hash that never contains the secret', () => {
    expect(stored).toMatch(/^scrypt\$\d+\$\d+\$\d+\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    expect(stored).not.toContain('correct secret');
  });

  it('salts every hash, so two hashes of the same secret differ', async () => {
    const again = await hashSecret('correct secret');
    expect(again).not.toBe(stored);
    expect(again.split('$')[4]).not.toBe(stored.split('$')[4]);
    await expect(createSecretVerifier().verify('correct secret', again)).resolves.toBe(true);
  });
});

describe('scryptHasher', () => {
  it("uses OWASP's minimum by default (N=2^17, r=8, p=1)", async () => {
    expect(OWASP_SCRYPT).toEqual({ N: 131072, r: 8, p: 1 });
    const hasher = scryptHasher();
    const hash = await hasher.hash('correct secret');
    expect(hash.startsWith('scrypt$131072$8$1$')).toBe(true);
    await expect(hasher.matches('correct secret', hash)).resolves.toBe(true);
    expect(hasher.outdated(hash)).toBe(false);
  });

  it('calls a hash made with weaker parameters outdated (to be redone at the next login)', () => {
    expect(scryptHasher().outdated(stored)).toBe(true);
    expect(fastHasher.outdated(stored)).toBe(false);
    expect(fastHasher.outdated('not a hash')).toBe(true);
  });

  it('verifies a hash made with other parameters than its own', async () => {
    await expect(scryptHasher({ N: 2 ** 11, r: 8, p: 1 }).matches('correct secret', stored)).resolves.toBe(true);
  });
});

describe('createSecretVerifier', () => {
  it('runs scrypt once for concurrent checks of the same secret (single flight)', async () => {
    const verifier = createSecretVerifier();
    const spy = jest.spyOn(crypto, 'scrypt');
    const results = await Promise.all(Array.from({ length: 50 }, () => verifier.verify('correct secret', stored)));
    expect(results.every(Boolean)).toBe(true);
    expect(spy).toHaveBeenCalledTimes(1);
    spy.mockClear();
    const wrong = await Promise.all(Array.from({ length: 10 }, () => verifier.verify('wrong secret', stored)));
    expect(wrong.some(Boolean)).toBe(false);
    expect(spy).toHaveBeenCalledTimes(1);
  });

  it('accepts the secret the hash was made from', async () => {
    await expect(createSecretVerifier().verify('correct secret', stored)).resolves.toBe(true);
  });

  it('refuses any other secret, including near misses', async () => {
    const verifier = createSecretVerifier();
    await expect(verifier.verify('wrong secret', stored)).resolves.toBe(false);
    await expect(verifier.verify('correct secret ', stored)).resolves.toBe(false);
    await expect(verifier.verify('', stored)).resolves.toBe(false);
  });

  it('answers false for an unknown account (no stored hash) even with a plausible secret', async () => {
    const verifier = createSecretVerifier();
    await expect(verifier.verify('correct secret', undefined)).resolves.toBe(false);
    await expect(verifier.verify('', null)).resolves.toBe(false);
  });

  it('still spends scrypt work for an unknown account, so timing does not reveal it', async () => {
    const verifier = createSecretVerifier();
    await verifier.verify('warm-up', undefined); // the dummy hash is made once per verifier
    const spy = jest.spyOn(crypto, 'scrypt');
    await verifier.verify('correct secret', undefined);
    expect(spy).toHaveBeenCalledTimes(1);
  });

  it('refuses a stored value that is not an scrypt hash', async () => {
    await expect(createSecretVerifier().verify('plain', 'plain')).resolves.toBe(false);
  });

  it('answers a repeated correct secret from its cache without running scrypt again', async () => {
    const verifier = createSecretVerifier();
    await expect(verifier.verify('correct secret', stored)).resolves.toBe(true);
    const spy = jest.spyOn(crypto, 'scrypt');
    await expect(verifier.verify('correct secret', stored)).resolves.toBe(true);
    expect(spy).not.toHaveBeenCalled();
  });

  it('is not fooled by its cache: a different secret for a cached account is still refused', async () => {
    const verifier = createSecretVerifier();
    await expect(verifier.verify('correct secret', stored)).resolves.toBe(true);
    await expect(verifier.verify('wrong secret', stored)).resolves.toBe(false);
    await expect(verifier.verify('correct secret', stored)).resolves.toBe(true);
  });

  it('does not serve a changed stored hash from the cache', async () => {
    const verifier = createSecretVerifier();
    await expect(verifier.verify('correct secret', stored)).resolves.toBe(true);
    // The account's secret was changed: the old secret must no longer pass.
    await expect(verifier.verify('correct secret', otherStored)).resolves.toBe(false);
    await expect(verifier.verify('another secret', otherStored)).resolves.toBe(true);
  });

  it('forgets a cached verification once its time to live has passed', async () => {
    let now = 1_000;
    const verifier = createSecretVerifier({ ttlMs: 60_000, now: () => now });
    await expect(verifier.verify('correct secret', stored)).resolves.toBe(true);
    const spy = jest.spyOn(crypto, 'scrypt');
    now += 60_001;
    await expect(verifier.verify('correct secret', stored)).resolves.toBe(true);
    expect(spy).toHaveBeenCalledTimes(1);
  });
});

describe('keyed secrets in the verifier', () => {
  it('checks a keyed hash at once, in constant time, without any scrypt work', async () => {
    const verifier = createSecretVerifier();
    const stored = keyed.hash('a generated secret');
    const spy = jest.spyOn(crypto, 'scrypt');
    await expect(verifier.verify('a generated secret', stored)).resolves.toBe(true);
    await expect(verifier.verify('a generated secreT', stored)).resolves.toBe(false);
    await expect(verifier.verify('', stored)).resolves.toBe(false);
    expect(spy).not.toHaveBeenCalled();
  });

  it('spends keyed work, not scrypt, on an unknown client (its kind of account)', async () => {
    const verifier = createSecretVerifier();
    const spy = jest.spyOn(crypto, 'scrypt');
    const hmac = jest.spyOn(crypto, 'createHmac');
    await expect(verifier.verify('a plausible secret', undefined, 'keyed')).resolves.toBe(false);
    expect(spy).not.toHaveBeenCalled();
    expect(hmac).toHaveBeenCalled();
  });

  it('refuses a keyed hash made under another key', async () => {
    const other = keyedHasher(randomBytes(32)).hash('a generated secret');
    await expect(createSecretVerifier().verify('a generated secret', other)).resolves.toBe(false);
  });
});

describe('rehash on login', () => {
  it('redoes a hash made with weaker parameters after the next successful login, and the old password still works', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rehash-'));
    const file = join(dir, 'token.db');
    const weak = await openTokenCore({
      stores: sqliteTokenStores(file),
      publicUrl: 'http://x',
      hasher: fastHasher,
      generateKey: pooledKeys,
    });
    const realm = (await weak.admin.createRealm({ name: 'r' })).id;
    await weak.admin.createUser({ realm, username: 'old', password: 'an old password' });
    // A secret a person chose is kept with the slow hash, like a password.
    const { client_secret } = await weak.admin.createClient({ realm, clientId: 'old-client', secret: 'a secret a person chose' });
    await weak.close();

    const stronger = scryptHasher({ N: 2 ** 11, r: 8, p: 1 });
    const core = await openTokenCore({ stores: sqliteTokenStores(file), publicUrl: 'http://x', hasher: stronger, generateKey: pooledKeys });
    const stored = async () => [
      (await core.store.users.get(realm, 'old'))!.passwordHash,
      (await core.store.clients.get(realm, 'old-client'))!.secretHash!,
    ];
    expect((await stored()).every((h) => h.startsWith('scrypt$1024$'))).toBe(true);
    await core.service.loginUser({ realm, username: 'old', password: 'an old password' });
    await core.service.issueForClient({ realm, client_id: 'old-client', client_secret });
    // Rehashed after the answer, off its path.
    await eventually(async () => (await stored()).every((h) => h.startsWith('scrypt$2048$')));
    await expect(core.service.loginUser({ realm, username: 'old', password: 'an old password' })).resolves.toMatchObject({
      token_type: 'Bearer',
    });
    await expect(core.service.issueForClient({ realm, client_id: 'old-client', client_secret })).resolves.toMatchObject({
      token_type: 'Bearer',
    });
    await core.close();
    rmSync(dir, { recursive: true, force: true });
  });
});
