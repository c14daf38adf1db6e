import { createPublicKey, randomUUID, type JsonWebKey } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt, generateKeyPair, SignJWT } from 'jose';
import { remoteJwksKeySource } from '../../core/auth/key-sources';
import { createTokenVerifier, issuerBaseFor, requireRole, type Caller, type KeySource, type VerifierOptions } from '../../core/auth/verifier';
import { Forbidden, Unauthenticated } from '../../core/errors';
import { openTokenCore, type TokenCore } from '../../core/token';
import type { TokenResponse } from '../../core/token/service';
import { PUBLIC_URL, testClock } from '../helpers';

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
  core = openTokenCore({ file: ':memory:', publicUrl: PUBLIC_URL, clock });
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
  createTokenVerifier({ issuerBase: ISSUER_BASE, keys: localKeys(), clockToleranceSec: 30, clock: testClock(issuedAt + offsetSec * 1000), ...opts });

/** Signs `claims` with a realm's real key (or overrides), to build tokens the issuer would never make. */
async function forge(claims: Record<string, unknown>, opts: { realm?: string; kid?: string } = {}): Promise<string> {
  const { kid, key } = await core.keys.signingKey(opts.realm ?? realm);
  return new SignJWT(claims).setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: opts.kid ?? kid }).sign(key);
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
    const token = await forge({ iss: ISSUER_BASE + realm, sub: 's', jti: randomUUID(), typ: 'Bearer', iat: issuedAt / 1000, exp: issuedAt / 1000 + 60 });
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
    const { kid } = JSON.parse(Buffer.from(header!, 'base64url').toString()) as { kid: string };
    await refusal(verifierAt().verify(`${b64({ alg: 'none', typ: 'JWT', kid })}.${payload}.`), /algorithm/);
  });

  it('refuses a token signed with HS256 using the public key bytes as the secret', async () => {
    const jwk = (await core.service.jwks(realm)).keys[0]!;
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
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as Record<string, unknown>;
    const tampered = `${header}.${b64({ ...claims, tenant_id: 'tenant-evil', realm_access: { roles: ['admin'] } })}.${signature}`;
    await refusal(verifierAt().verify(tampered), /signature/);
  });

  it('refuses a token with a key id the realm does not publish', async () => {
    const claims = decodeJwt(clientToken.access_token);
    await refusal(verifierAt().verify(await forge(claims, { kid: 'unknown-kid' })), /unknown key id/);
    const attacker = await generateKeyPair('RS256');
    const ownKey = await new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'attacker' }).sign(attacker.privateKey);
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

  it('refuses a refresh token where an access token is expected', async () => {
    await refusal(verifierAt().verify(clientToken.refresh_token), /wrong token type/);
    await refusal(verifierAt().verify(userToken.refresh_token), /wrong token type/);
  });

  it('verifies a refresh token only when asked for one, for its own realm', async () => {
    const v = verifierAt();
    await expect(v.verifyToken(clientToken.refresh_token, { typ: 'Refresh', realm })).resolves.toMatchObject({ realm, claims: { typ: 'Refresh' } });
    await refusal(v.verifyToken(clientToken.refresh_token, { typ: 'Refresh', realm: otherRealm }), /another realm/);
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

describe('requireRole', () => {
  it('passes a caller holding the role and throws Forbidden otherwise', async () => {
    const caller = await verifierAt().verify(userToken.access_token);
    expect(() => requireRole(caller, 'search:read')).not.toThrow();
    expect(() => requireRole(caller, 'search:write')).toThrow(Forbidden);
    expect(() => requireRole(caller, 'search:write')).toThrow("Missing role 'search:write'");
  });
});

describe('createTokenVerifier with remoteJwksKeySource', () => {
  let server: Server;
  let baseUrl: string;
  const requests: string[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      requests.push(req.url ?? '');
      const m = /^\/auth\/api\/v1\/realms\/([^/]+)\/protocol\/openid-connect\/certs$/.exec(req.url ?? '');
      const known = m && core.store.realms.get(decodeURIComponent(m[1]!));
      res.writeHead(known ? 200 : 404, { 'content-type': 'application/json' });
      res.end(JSON.stringify(known ? core.keys.jwks(known.id) : { detail: 'Realm not found' }));
    });
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
    await expect(v.verify(userToken.access_token)).resolves.toMatchObject({ realm, username: 'alice', tenantId: 'tenant-a', roles: ['search:read'] });
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

  it('refuses every token when the token service cannot be reached', async () => {
    const v = verifierAt(0, { keys: remoteJwksKeySource('http://127.0.0.1:1') });
    await refusal(v.verify(clientToken.access_token), /unknown key id/);
  });
});
