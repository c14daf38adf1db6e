import { createPublicKey, randomUUID, type JsonWebKey } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt, generateKeyPair, SignJWT } from 'jose';
import { remoteJwksKeySource } from '../../../core/shared/auth/key-sources';
import { authorize, InsufficientRole, InvalidToken, MissingCredentials, type Caller } from '../../../core/shared/auth/caller';
import { createRevocationList, hashedSubject } from '../../../core/shared/auth/revocations';
import {
  createTokenVerifier,
  issuerBaseFor,
  RevocationsLoading,
  type KeySource,
  type VerifierOptions,
} from '../../../core/shared/auth/verifier';
import { Forbidden, Unauthenticated } from '../../../core/shared/errors';
import type { TokenCore } from '../../../core/token';
import type { TokenResponse } from '../../../core/token/service';
import { PUBLIC_URL, testClock, testTokenCore } from '../../shared/helpers';

const ISSUER_BASE = issuerBaseFor(PUBLIC_URL);
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

let core: TokenCore;
let realm: string;
let otherRealm: string;
let aliceId: string;
let clientToken: TokenResponse;
let userToken: TokenResponse;
/** Milliseconds at which the tokens were issued. */
let issuedAt: number;

beforeAll(async () => {
  const clock = testClock();
  issuedAt = clock.now();
  core = await testTokenCore(clock);
  realm = (await core.admin.createRealm({ name: 'main' })).id;
  otherRealm = (await core.admin.createRealm({ name: 'other' })).id;
  const [client, alice] = await Promise.all([
    core.admin.createClient({ realm, clientId: 'svc-a', roles: ['search:read', 'search:write'], scopes: ['openid', 'search'] }),
    core.admin.createUser({ realm, username: 'alice', password: 'correct horse battery', roles: ['search:read'], tenantId: 'tenant-a' }),
  ]);
  aliceId = alice.id;
  clientToken = await core.service.issueForClient({ realm, client_id: 'svc-a', client_secret: client.client_secret });
  userToken = await core.service.loginUser({ realm, username: 'alice', password: 'correct horse battery' });
});
afterAll(() => core.close());

/** The in-process key source a service sharing the token store would use. */
const localKeys = (): KeySource => ({ key: (r, kid) => core.keys.verificationKey(r, kid) });

/** A verifier whose clock reads `offsetSec` seconds after the tokens were issued. */
const verifierAt = (offsetSec = 0, opts: Partial<VerifierOptions> = {}) =>
  createTokenVerifier({
    issuerBase: ISSUER_BASE,
    keys: localKeys(),
    clockToleranceSec: 30,
    clock: testClock(issuedAt + offsetSec * 1000),
    ...opts,
  });

/** Signs `claims` with a realm's real key (or overrides), to build tokens the issuer would never make. */
async function forge(claims: Record<string, unknown>, opts: { realm?: string; kid?: string; typ?: string } = {}): Promise<string> {
  const { kid, key } = await core.keys.signingKey(opts.realm ?? realm);
  return new SignJWT(claims).setProtectedHeader({ alg: 'RS256', typ: opts.typ ?? 'at+jwt', kid: opts.kid ?? kid }).sign(key);
}

const refusal = async (p: Promise<unknown>, reason: RegExp) => {
  await expect(p).rejects.toBeInstanceOf(Unauthenticated);
  await expect(p).rejects.toMatchObject({ code: 'invalid_token', message: expect.stringMatching(reason) });
};

describe('createTokenVerifier with in-process keys', () => {
  it("accepts a fresh user access token and returns the caller's identity", async () => {
    const claims = decodeJwt(userToken.access_token);
    await expect(verifierAt().verify(userToken.access_token)).resolves.toEqual<Caller>({
      realm,
      subject: aliceId,
      tenantId: 'tenant-a',
      roles: ['search:read'],
      scopes: ['openid', 'profile', 'email'],
      clientId: 'platform-login',
      username: 'alice',
      sessionId: userToken.session_state,
      tokenId: String(claims.jti),
      expiresAt: Number(claims.exp),
      audience: ['account', 'search'],
      bearer: userToken.access_token,
    });
  });

  it('accepts a client-credentials token, with the realm as tenant by default', async () => {
    await expect(verifierAt().verify(clientToken.access_token)).resolves.toMatchObject({
      realm,
      tenantId: realm,
      roles: ['search:read', 'search:write'],
      scopes: ['openid', 'search'],
      clientId: 'svc-a',
      username: 'service-account-svc-a',
    });
  });

  it('falls back to the realm as tenant for a token without tenant_id', async () => {
    const token = await forge({
      iss: ISSUER_BASE + realm,
      sub: 's',
      jti: randomUUID(),
      typ: 'Bearer',
      iat: issuedAt / 1000,
      exp: issuedAt / 1000 + 60,
    });
    await expect(verifierAt().verify(token)).resolves.toMatchObject({ tenantId: realm, roles: [], scopes: [] });
  });

  it('tolerates clock skew within clockToleranceSec after expiry', async () => {
    await expect(verifierAt(300 + 25).verify(clientToken.access_token)).resolves.toMatchObject({ clientId: 'svc-a' });
  });

  it('refuses a token expired by more than clockToleranceSec', async () => {
    await refusal(verifierAt(300 + 35).verify(clientToken.access_token), /expired/);
  });

  it('applies a tolerance of 30 seconds when none is configured', async () => {
    const at = (s: number) => createTokenVerifier({ issuerBase: ISSUER_BASE, keys: localKeys(), clock: testClock(issuedAt + s * 1000) });
    await expect(at(325).verify(clientToken.access_token)).resolves.toBeDefined();
    await refusal(at(335).verify(clientToken.access_token), /expired/);
  });

  it('refuses a token with alg none', async () => {
    const [header, payload] = clientToken.access_token.split('.');
    const { kid } = JSON.parse(Buffer.from(header, 'base64url').toString()) as { kid: string };
    await refusal(verifierAt().verify(`${b64({ alg: 'none', typ: 'JWT', kid })}.${payload}.`), /algorithm/);
  });

  it('refuses a token signed with HS256 using the public key bytes as the secret', async () => {
    const jwk = (await core.service.jwks({ realm })).keys[0];
    const publicPem = createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' }).export({ type: 'spki', format: 'pem' });
    const forged = await new SignJWT(decodeJwt(clientToken.access_token))
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT', kid: jwk.kid })
      .sign(Buffer.from(publicPem));
    await refusal(verifierAt().verify(forged), /algorithm/);
    // Even a key source that hands out raw bytes cannot be tricked into HMAC verification.
    const bytes: KeySource = { key: async () => Buffer.from(publicPem) };
    await refusal(verifierAt(0, { keys: bytes }).verify(forged), /algorithm/);
  });

  it('refuses a token whose payload was changed after signing', async () => {
    const [header, payload, signature] = clientToken.access_token.split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
    const tampered = `${header}.${b64({ ...claims, tenant_id: 'tenant-evil', realm_access: { roles: ['admin'] } })}.${signature}`;
    await refusal(verifierAt().verify(tampered), /signature/);
  });

  it('refuses a token with a key id the realm does not publish', async () => {
    const claims = decodeJwt(clientToken.access_token);
    await refusal(verifierAt().verify(await forge(claims, { kid: 'unknown-kid' })), /unknown key id/);
    const attacker = await generateKeyPair('RS256');
    const ownKey = await new SignJWT(claims).setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid: 'attacker' }).sign(attacker.privateKey);
    await refusal(verifierAt().verify(ownKey), /unknown key id/);
  });

  it("refuses a token signed with another realm's key but claiming this realm's issuer", async () => {
    const forged = await forge(decodeJwt(clientToken.access_token), { realm: otherRealm });
    await refusal(verifierAt().verify(forged), /unknown key id/);
  });

  it('refuses an issuer outside issuerBase, or a realm that is not a UUID', async () => {
    const claims = decodeJwt(clientToken.access_token);
    await refusal(verifierAt().verify(await forge({ ...claims, iss: `http://evil.test/auth/api/v1/realms/${realm}` })), /unknown issuer/);
    await refusal(verifierAt().verify(await forge({ ...claims, iss: `${ISSUER_BASE}main` })), /unknown issuer/);
    await refusal(verifierAt().verify(await forge({ ...claims, iss: `${ISSUER_BASE}${realm}/../x` })), /unknown issuer/);
    const { iss: _iss, ...noIssuer } = claims;
    await refusal(verifierAt().verify(await forge(noIssuer)), /unknown issuer/);
  });

  it('refuses a realm outside the accepted `realms`, and accepts one inside', async () => {
    await refusal(verifierAt(0, { realms: [otherRealm] }).verify(clientToken.access_token), /realm not accepted/);
    await expect(verifierAt(0, { realms: [otherRealm, realm] }).verify(clientToken.access_token)).resolves.toMatchObject({ realm });
  });

  it("refuses a refresh token where an access token is expected (HS512, the token service's own)", async () => {
    await refusal(verifierAt().verify(clientToken.refresh_token), /algorithm/);
    await refusal(verifierAt().verify(userToken.refresh_token), /algorithm/);
  });

  it('refuses an RS256 token whose header typ is not at+jwt (RFC 9068), or whose payload typ is not Bearer', async () => {
    const claims = decodeJwt(clientToken.access_token);
    await refusal(verifierAt().verify(await forge(claims, { typ: 'JWT' })), /not an access token/);
    await refusal(verifierAt().verify(await forge({ ...claims, typ: 'Refresh' })), /wrong token type/);
    await expect(verifierAt().verify(await forge(claims, { typ: 'application/at+jwt' }))).resolves.toMatchObject({ clientId: 'svc-a' });
  });

  it('checks the audience when asked: a token names the services it is for', async () => {
    expect(decodeJwt(clientToken.access_token).aud).toEqual(['account', 'search']);
    await expect(verifierAt().verify(clientToken.access_token, { audience: 'search' })).resolves.toMatchObject({
      audience: ['account', 'search'],
    });
    await refusal(verifierAt().verify(clientToken.access_token, { audience: 'models' }), /not issued for this service/);
  });

  it('refuses a token issued in the future beyond the clock tolerance', async () => {
    const claims = decodeJwt(clientToken.access_token);
    const at = (skewSec: number) => forge({ ...claims, iat: Number(claims.iat) + skewSec, exp: Number(claims.exp) + skewSec });
    await expect(verifierAt().verify(await at(25))).resolves.toBeDefined();
    await refusal(verifierAt().verify(await at(40)), /future/);
  });

  it('authenticates an Authorization header: missing is MissingCredentials, anything but one Bearer token is invalid', async () => {
    const v = verifierAt();
    await expect(v.authenticate(`Bearer ${clientToken.access_token}`)).resolves.toMatchObject({
      clientId: 'svc-a',
      bearer: clientToken.access_token,
    });
    await expect(v.authenticate(`bearer   ${clientToken.access_token} `)).resolves.toMatchObject({ clientId: 'svc-a' });
    await expect(v.authenticate(undefined)).rejects.toBeInstanceOf(MissingCredentials);
    await expect(v.authenticate('  ')).rejects.toBeInstanceOf(MissingCredentials);
    await expect(v.authenticate('Basic abc')).rejects.toBeInstanceOf(InvalidToken);
    await expect(v.authenticate(`Bearer ${clientToken.access_token} extra`)).rejects.toBeInstanceOf(InvalidToken);
  });

  it('refuses a token missing a required claim', async () => {
    const { jti: _jti, ...noJti } = decodeJwt(clientToken.access_token);
    await refusal(verifierAt().verify(await forge(noJti)), /claims/);
  });

  it('refuses malformed input', async () => {
    await refusal(verifierAt().verify('not a token'), /malformed/);
    await refusal(verifierAt().verify(''), /malformed/);
  });
});

describe('authorize', () => {
  it('passes a caller holding the roles and the audience, and names what is missing otherwise', async () => {
    const caller = await verifierAt().verify(userToken.access_token);
    expect(authorize(caller, { audience: 'search', roles: ['search:read'] })).toBe(caller);
    expect(() => authorize(caller, { roles: ['search:write'] })).toThrow(Forbidden);
    expect(() => authorize(caller, { roles: ['search:write'] })).toThrow(InsufficientRole);
    expect(() => authorize(caller, { roles: ['search:write'] })).toThrow("Missing role 'search:write'");
    expect(() => authorize(caller, { audience: 'models' })).toThrow(InvalidToken);
  });
});

describe('createTokenVerifier with remoteJwksKeySource', () => {
  let server: Server;
  let baseUrl: string;
  const requests: string[] = [];

  beforeAll(async () => {
    const answer = async (req: IncomingMessage, res: ServerResponse) => {
      requests.push(req.url ?? '');
      const m = /^\/auth\/api\/v1\/realms\/([^/]+)\/protocol\/openid-connect\/certs$/.exec(req.url ?? '');
      const known = m && (await core.store.realms.get(decodeURIComponent(m[1])));
      res.writeHead(known ? 200 : 404, { 'content-type': 'application/json' });
      res.end(JSON.stringify(known ? await core.keys.jwks(known.id) : { detail: 'Realm not found' }));
    };
    // A failed answer cuts the connection (the verifier under test sees that), not an unhandled rejection.
    server = createServer((req, res) => void answer(req, res).catch((err: Error) => res.destroy(err)));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const remoteVerifier = () => verifierAt(0, { keys: remoteJwksKeySource(`${baseUrl}/`) });

  it("accepts a fresh access token using the realm's published JWKS, fetched once and cached", async () => {
    requests.length = 0;
    const v = remoteVerifier();
    await expect(v.verify(userToken.access_token)).resolves.toMatchObject({
      realm,
      username: 'alice',
      tenantId: 'tenant-a',
      roles: ['search:read'],
    });
    await expect(v.verify(clientToken.access_token)).resolves.toMatchObject({ clientId: 'svc-a' });
    expect(requests).toEqual([`/auth/api/v1/realms/${realm}/protocol/openid-connect/certs`]);
  });

  it('refuses a token whose key id the JWKS does not list', async () => {
    await refusal(remoteVerifier().verify(await forge(decodeJwt(clientToken.access_token), { kid: 'unknown-kid' })), /unknown key id/);
  });

  it('refuses a tampered token', async () => {
    const [header, , signature] = clientToken.access_token.split('.');
    const tampered = `${header}.${b64({ ...decodeJwt(clientToken.access_token), tenant_id: 'tenant-evil' })}.${signature}`;
    await refusal(remoteVerifier().verify(tampered), /signature/);
  });

  it('refuses a token of a realm the token service does not know', async () => {
    const unknownRealm = randomUUID();
    const forged = await forge({ ...decodeJwt(clientToken.access_token), iss: ISSUER_BASE + unknownRealm });
    await refusal(remoteVerifier().verify(forged), /unknown key id/);
  });

  it('remembers a realm that does not exist: forged issuers do not make it fetch again', async () => {
    const keys = remoteJwksKeySource(baseUrl);
    const v = verifierAt(0, { keys });
    const forged = await forge({ ...decodeJwt(clientToken.access_token), iss: ISSUER_BASE + randomUUID() });
    requests.length = 0;
    for (let i = 0; i < 5; i++) await refusal(v.verify(forged), /unknown key id/);
    expect(requests).toHaveLength(1);
  });

  it('looks up realms never seen before at a bounded rate', async () => {
    const v = verifierAt(0, { keys: remoteJwksKeySource(baseUrl, { newRealmsPerMinute: 3 }) });
    requests.length = 0;
    for (let i = 0; i < 10; i++) {
      await refusal(v.verify(await forge({ ...decodeJwt(clientToken.access_token), iss: ISSUER_BASE + randomUUID() })), /unknown key id/);
    }
    expect(requests).toHaveLength(3);
  });

  it('refuses every token when the token service cannot be reached', async () => {
    const v = verifierAt(0, { keys: remoteJwksKeySource('http://127.0.0.1:1') });
    await refusal(v.verify(clientToken.access_token), /unknown key id/);
  });
});

describe('createTokenVerifier with the revoked-sessions list', () => {
  const listAt = () => createRevocationList({ clock: testClock(issuedAt), toleranceMs: 30_000 });

  it('refuses a token whose session is listed, and accepts the others', async () => {
    const list = listAt();
    const verifier = verifierAt(0, { revocations: list });
    const sid = String(decodeJwt(userToken.access_token).sid);
    list.apply([{ realm, kind: 'session', subject: sid, upTo: 0, until: issuedAt + 300_000 }]);
    await refusal(verifier.verify(userToken.access_token), /^Invalid token: revoked$/);
    await expect(verifier.verify(clientToken.access_token)).resolves.toMatchObject({ clientId: 'svc-a' });
  });

  it('refuses every token of a user or client listed as a whole', async () => {
    const list = listAt();
    const verifier = verifierAt(0, { revocations: list });
    list.apply([{ realm, kind: 'user', subject: hashedSubject(aliceId), upTo: issuedAt, until: issuedAt + 300_000 }]);
    await refusal(verifier.verify(userToken.access_token), /revoked/);
    await expect(verifier.verify(clientToken.access_token)).resolves.toBeDefined();
    list.apply([{ realm, kind: 'client', subject: hashedSubject('svc-a'), upTo: issuedAt, until: issuedAt + 300_000 }]);
    await refusal(verifier.verify(clientToken.access_token), /revoked/);
  });

  it('refuses every token with 503 while the list is not loaded, before anything else is said of a valid token', async () => {
    const verifier = verifierAt(0, { revocations: { revoked: () => false, loading: () => true } });
    await expect(verifier.verify(userToken.access_token)).rejects.toBeInstanceOf(RevocationsLoading);
    await expect(verifier.verify(userToken.access_token)).rejects.toMatchObject({ kind: 'unavailable', retryAfterSeconds: 2 });
    // A token that is invalid anyway is still a 401.
    await refusal(verifier.verify('garbage'), /malformed/);
  });
});
