import crypto from 'node:crypto';
import { createSecretVerifier, hashSecret } from '../../core/token/secrets';

// scrypt is slow by design: hash each secret once for the whole file.
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

describe('createSecretVerifier', () => {
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
