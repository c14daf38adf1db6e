import { decodeProtectedHeader, errors as joseErrors, jwtVerify, type JWTPayload, type KeyLike } from 'jose';
import { epochSeconds, systemClock, type Clock } from '../clock';
import { Unavailable } from '../errors';
import { bearerToken, InvalidToken, MissingCredentials, type Caller } from './caller';
import type { RevocationList } from './revocations';
import { verifiedTokens } from './verified-cache';

/**
 * Offline verification of the token service's access tokens, for every service that accepts them.
 * Rules: RS256 only (so `alg: none` and HS256-with-the-public-key are refused before any key is
 * used), header `typ` at+jwt (RFC 9068 §4), a well-formed `kid` the issuing realm publishes, an
 * issuer under this platform's realms (optionally one of `realms`), `exp` and `iat` within the
 * clock tolerance (a token from the future is refused), payload `typ` Bearer (Keycloak's claim;
 * refresh tokens are not access tokens), when asked an audience naming the service, and, given the
 * revoked-sessions list, a session that was not ended (a lookup in memory: revocations.ts).
 */
export const TOKEN_ALG = 'RS256';
export const ACCESS_TOKEN_TYPE = 'at+jwt';

/** Port: where public keys come from (the key store in process, the JWKS URL when remote). */
export interface KeySource {
  key(realmId: string, kid: string): Promise<KeyLike | Uint8Array | undefined>;
}

export interface VerifierOptions {
  /** Issuer of realm R is `${issuerBase}${R}`: `${PUBLIC_URL}/auth/api/v1/realms/`. */
  issuerBase: string;
  keys: KeySource;
  clockToleranceSec?: number;
  clock?: Clock;
  /** When set, only these realms' tokens are accepted. */
  realms?: readonly string[];
  /**
   * The sessions ended before their tokens expire (logout, revocation, a disabled user or client);
   * while `loading` says so (its first read has not succeeded yet), every token is refused with 503.
   */
  revocations?: Pick<RevocationList, 'revoked'> & { loading?(): boolean };
  /** Verified tokens kept so a token presented again skips the signature check (verified-cache.ts); 0: none. Default 10,000. */
  verifiedCacheSize?: number;
}

/** A token cannot be checked against the revoked-sessions list yet (its source does not answer). */
export class RevocationsLoading extends Unavailable {
  constructor() {
    super('The list of revoked sessions is not loaded yet; try again shortly.', 2, { code: 'revocations_loading' });
  }
}

export interface VerifiedToken {
  realm: string;
  claims: JWTPayload & Record<string, unknown>;
}

export interface TokenVerifier {
  /** Verifies signature and claims; throws InvalidToken with a short reason. */
  verifyToken(token: string, expect?: { realm?: string; audience?: string }): Promise<VerifiedToken>;
  /** The caller of a verified access token. */
  verify(token: string, expect?: { audience?: string }): Promise<Caller>;
  /** The caller behind an `Authorization` header value: MissingCredentials or InvalidToken otherwise. */
  authenticate(header: string | undefined): Promise<Caller>;
}

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const KID = /^[A-Za-z0-9_-]{1,128}$/;

export const issuerBaseFor = (publicUrl: string): string => `${publicUrl.replace(/\/+$/, '')}/auth/api/v1/realms/`;

export function createTokenVerifier(opts: VerifierOptions): TokenVerifier {
  const clock = opts.clock ?? systemClock;
  const tolerance = opts.clockToleranceSec ?? 30;
  const cache = verifiedTokens(opts.verifiedCacheSize ?? 10_000);

  /** What changes over a token's lifetime, checked on every use: the revoked sessions. */
  const notRevoked = (realm: string, payload: JWTPayload) => {
    if (opts.revocations?.loading?.()) throw new RevocationsLoading();
    if (opts.revocations?.revoked({ realm, sessionId: str(payload.sid), subject: str(payload.sub), clientId: str(payload.azp) })) {
      throw new InvalidToken('revoked');
    }
  };

  async function verifyToken(token: string, expect: { realm?: string; audience?: string } = {}): Promise<VerifiedToken> {
    let header;
    try {
      header = decodeProtectedHeader(token);
    } catch {
      throw new InvalidToken('malformed');
    }
    if (header.alg !== TOKEN_ALG) throw new InvalidToken('algorithm not accepted');
    if (typeof header.kid !== 'string' || !KID.test(header.kid)) throw new InvalidToken('no key id');
    if (header.typ?.toLowerCase().replace(/^application\//, '') !== ACCESS_TOKEN_TYPE) throw new InvalidToken('not an access token');

    const iss = unverifiedIssuer(token);
    if (!iss?.startsWith(opts.issuerBase)) throw new InvalidToken('unknown issuer');
    const realm = iss.slice(opts.issuerBase.length);
    if (!UUID.test(realm)) throw new InvalidToken('unknown issuer');
    if (expect.realm !== undefined && realm !== expect.realm) throw new InvalidToken('issued by another realm');
    if (opts.realms && !opts.realms.includes(realm)) throw new InvalidToken('realm not accepted');

    const key = await opts.keys.key(realm, header.kid);
    if (!key) throw new InvalidToken('unknown key id');
    const id = cache.idOf(token, expect.audience);
    const now = epochSeconds(clock);
    const known = cache.get(id, key, now);
    if (known) {
      // As jose's check: expired once `exp` is `tolerance` seconds past.
      if (Number(known.claims.exp) <= now - tolerance) {
        cache.delete(id);
        throw new InvalidToken('expired');
      }
      notRevoked(realm, known.claims);
      return { realm, claims: { ...known.claims } };
    }
    try {
      const { payload } = await jwtVerify(token, key, {
        algorithms: [TOKEN_ALG],
        issuer: iss,
        clockTolerance: tolerance,
        currentDate: new Date(clock.now()),
        requiredClaims: ['exp', 'iat', 'sub', 'jti'],
        ...(expect.audience ? { audience: expect.audience } : {}),
      });
      if (payload.typ !== 'Bearer') throw new InvalidToken('wrong token type');
      if (Number(payload.iat) > epochSeconds(clock) + tolerance) throw new InvalidToken('issued in the future');
      cache.set(id, { key, realm, claims: payload, at: now });
      notRevoked(realm, payload);
      return { realm, claims: payload };
    } catch (err) {
      if (err instanceof InvalidToken || err instanceof RevocationsLoading) throw err;
      if (err instanceof joseErrors.JWTExpired) throw new InvalidToken('expired');
      if (err instanceof joseErrors.JWTClaimValidationFailed && err.claim === 'aud') throw new InvalidToken('not issued for this service');
      throw new InvalidToken('signature or claims rejected');
    }
  }

  const verify = async (token: string, expect: { audience?: string } = {}) => {
    const { realm, claims } = await verifyToken(token, expect);
    return callerFrom(realm, claims, token);
  };

  return {
    verifyToken,
    verify,
    async authenticate(header) {
      if (!header?.trim()) throw new MissingCredentials();
      const token = bearerToken(header);
      if (!token) throw new InvalidToken('expected "Bearer <access token>"');
      return verify(token);
    },
  };
}

function unverifiedIssuer(token: string): string | undefined {
  try {
    const payload = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { iss?: unknown };
    return typeof payload.iss === 'string' ? payload.iss : undefined;
  } catch {
    return undefined;
  }
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const strings = (v: unknown): string[] => (Array.isArray(v) ? v : [v]).filter((x): x is string => typeof x === 'string');

export function callerFrom(realm: string, c: VerifiedToken['claims'], bearer: string): Caller {
  const access = c.realm_access as { roles?: unknown } | undefined;
  return {
    realm,
    subject: str(c.sub),
    tenantId: str(c.tenant_id) || realm,
    roles: strings(access?.roles),
    scopes: str(c.scope).split(' ').filter(Boolean),
    clientId: str(c.azp),
    username: str(c.preferred_username),
    sessionId: str(c.sid),
    tokenId: str(c.jti),
    expiresAt: Number(c.exp),
    audience: strings(c.aud),
    bearer,
  };
}
