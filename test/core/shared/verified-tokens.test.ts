import { generateKeyPair, jwtVerify } from 'jose';
import { createRevocationList } from '../../../core/shared/auth/revocations';
import { verifiedTokens } from '../../../core/shared/auth/verified-cache';
import { createTokenVerifier, issuerBaseFor, type KeySource, type VerifierOptions } from '../../../core/shared/auth/verifier';
import { Unauthenticated } from '../../../core/shared/errors';
import type { TokenCore } from '../../../core/token';
import { PUBLIC_URL, testClock, testTokenCore } from '../../shared/helpers';

// The real jose, with its signature check counted.
jest.mock('jose', () => {
  const actual = jest.requireActual('jose');
  return { ...actual, jwtVerify: jest.fn(actual.jwtVerify) };
});
const signatureChecks = jwtVerify as jest.MockedFunction<typeof jwtVerify>;

let core: TokenCore;
let realm: string;
let token: string;
let sessionId: string;
let issuedAt: number;

beforeAll(async () => {
  const clock = testClock();
  issuedAt = clock.now();
  core = await testTokenCore(clock);
  realm = (await core.admin.createRealm({ name: 'main' })).id;
  await core.admin.createUser({ realm, username: 'alice', password: 'correct horse battery', roles: ['search:read'], tenantId: 't' });
  const issued = await core.service.loginUser({ realm, username: 'alice', password: 'correct horse battery' });
  token = issued.access_token;
  sessionId = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()).sid;
});
afterAll(() => core.close());
beforeEach(() => signatureChecks.mockClear());

const localKeys: () => KeySource = () => ({ key: (r, kid) => core.keys.verificationKey(r, kid) });
const verifierWith = (clock: ReturnType<typeof testClock>, opts: Partial<VerifierOptions> = {}) =>
  createTokenVerifier({ issuerBase: issuerBaseFor(PUBLIC_URL), keys: localKeys(), clockToleranceSec: 30, clock, ...opts });
const refused = async (p: Promise<unknown>, reason: RegExp) => {
  await expect(p).rejects.toBeInstanceOf(Unauthenticated);
  await expect(p).rejects.toMatchObject({ message: expect.stringMatching(reason) });
};

describe('a token presented again', () => {
  it('is verified once: the same caller comes back without a second signature check', async () => {
    const verifier = verifierWith(testClock(issuedAt));
    const first = await verifier.verify(token);
    const again = await verifier.verify(token);
    expect(again).toEqual(first);
    expect(again.realm).toBe(realm);
    expect(signatureChecks).toHaveBeenCalledTimes(1);
  });

  it('is refused once it expires, although it was verified before', async () => {
    const clock = testClock(issuedAt);
    const verifier = verifierWith(clock);
    const caller = await verifier.verify(token);
    clock.advance(caller.expiresAt * 1000 - issuedAt + 31_000);
    await refused(verifier.verify(token), /expired/);
  });

  it('is refused once its session is revoked, although it was verified before', async () => {
    const list = createRevocationList({ clock: testClock(issuedAt), toleranceMs: 30_000 });
    const verifier = verifierWith(testClock(issuedAt), { revocations: list });
    await verifier.verify(token);
    list.apply([{ realm, kind: 'session', subject: sessionId, upTo: 0, until: issuedAt + 300_000 }]);
    await refused(verifier.verify(token), /revoked/);
  });

  it('is checked again when the key its kid names is no longer the one that verified it', async () => {
    let swapped = false;
    const other = (await generateKeyPair('RS256')).publicKey;
    const keys: KeySource = { key: async (r, kid) => (swapped ? other : core.keys.verificationKey(r, kid)) };
    const verifier = verifierWith(testClock(issuedAt), { keys });
    await verifier.verify(token);
    swapped = true;
    await refused(verifier.verify(token), /signature/);
  });

  it('is checked again for another audience, and with a clock that reads earlier', async () => {
    const clock = testClock(issuedAt + 60_000);
    const verifier = verifierWith(clock);
    await verifier.verify(token);
    await refused(verifier.verify(token, { audience: 'not-this-one' }), /not issued for this service/);
    clock.advance(-120_000);
    await refused(verifier.verify(token), /issued in the future/);
  });

  it('is not kept when the cache is off', async () => {
    const verifier = verifierWith(testClock(issuedAt), { verifiedCacheSize: 0 });
    await verifier.verify(token);
    await verifier.verify(token);
    expect(signatureChecks).toHaveBeenCalledTimes(2);
  });
});

describe('verifiedTokens', () => {
  const entry = (key: unknown, at = 100) => ({ key, realm: 'r', claims: { exp: 200 }, at });

  it('keeps at most max tokens, dropping the oldest', () => {
    const kept = verifiedTokens(2);
    const key = {};
    for (const t of ['a', 'b', 'c']) kept.set(kept.idOf(t, undefined), entry(key));
    expect(kept.size()).toBe(2);
    expect(kept.get(kept.idOf('a', undefined), key, 100)).toBeUndefined();
    expect(kept.get(kept.idOf('c', undefined), key, 100)).toMatchObject({ realm: 'r' });
  });

  it('keys by token and audience, never by the token text itself', () => {
    const kept = verifiedTokens(10);
    expect(kept.idOf('tok', 'chat')).not.toBe(kept.idOf('tok', undefined));
    expect(kept.idOf('tok', undefined)).not.toContain('tok');
  });
});
