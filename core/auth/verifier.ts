import { decodeProtectedHeader, errors as joseErrors, jwtVerify, type JWTPayload, type KeyLike } from 'jose';
import { systemClock, type Clock } from '../clock';
import { Forbidden, Unauthenticated } from '../errors';

/**
 * Offline verification of the token service's access tokens, for every service that accepts them.
 * Rules: RS256 only (so `alg: none` and HS256-with-the-public-key are refused before any key is
 * used), a `kid` the issuing realm publishes, an issuer under this platform's realms (optionally
 * one of `realms`), unexpired within the clock tolerance, and `typ` Bearer (refresh tokens are not
 * access tokens).
 */
export const TOKEN_ALG = 'RS256';

/** Port: where public keys come from (the key store in process, the JWKS URL when remote). */
export interface KeySource {
  key(realmId: string, kid: string): Promise<KeyLike | Uint8Array | undefined>;
}

/** The authenticated caller, as the other services use it. */
export interface Caller {
  realm: string;
  subject: string;
  tenantId: string;
  roles: string[];
  scopes: string[];
  clientId: string;
  username: string;
  sessionId: string;
  tokenId: string;
  expiresAt: number;
}

export interface VerifierOptions {
  /** Issuer of realm R is `${issuerBase}${R}`: `${PUBLIC_URL}/auth/api/v1/realms/`. */
  issuerBase: string;
  keys: KeySource;
  clockToleranceSec?: number;
  clock?: Clock;
  /** When set, only these realms' tokens are accepted. */
  realms?: readonly string[];
}

export interface VerifiedToken {
  realm: string;
  claims: JWTPayload & Record<string, unknown>;
}

export interface TokenVerifier {
  /** Verifies signature and claims; throws Unauthenticated with a short reason. */
  verifyToken(token: string, expect?: { realm?: string; typ?: 'Bearer' | 'Refresh' }): Promise<VerifiedToken>;
  verify(token: string): Promise<Caller>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const invalid = (why: string) => new Unauthenticated(`Invalid token: ${why}`, { code: 'invalid_token' });

export const issuerBaseFor = (publicUrl: string): string => `${publicUrl.replace(/\/+$/, '')}/auth/api/v1/realms/`;

export function createTokenVerifier(opts: VerifierOptions): TokenVerifier {
  const clock = opts.clock ?? systemClock;
  const tolerance = opts.clockToleranceSec ?? 30;

  async function verifyToken(token: string, expect: { realm?: string; typ?: 'Bearer' | 'Refresh' } = {}): Promise<VerifiedToken> {
    let header;
    try {
      header = decodeProtectedHeader(token);
    } catch {
      throw invalid('malformed');
    }
    if (header.alg !== TOKEN_ALG) throw invalid('algorithm not accepted');
    if (typeof header.kid !== 'string' || !header.kid) throw invalid('no key id');

    const iss = unverifiedIssuer(token);
    if (!iss?.startsWith(opts.issuerBase)) throw invalid('unknown issuer');
    const realm = iss.slice(opts.issuerBase.length);
    if (!UUID.test(realm)) throw invalid('unknown issuer');
    if (expect.realm !== undefined && realm !== expect.realm) throw invalid('issued by another realm');
    if (opts.realms && !opts.realms.includes(realm)) throw invalid('realm not accepted');

    const key = await opts.keys.key(realm, header.kid);
    if (!key) throw invalid('unknown key id');
    try {
      const { payload } = await jwtVerify(token, key, {
        algorithms: [TOKEN_ALG],
        issuer: iss,
        clockTolerance: tolerance,
        currentDate: new Date(clock.now()),
        requiredClaims: ['exp', 'iat', 'sub', 'jti'],
      });
      if (payload.typ !== (expect.typ ?? 'Bearer')) throw invalid('wrong token type');
      return { realm, claims: payload as VerifiedToken['claims'] };
    } catch (err) {
      if (err instanceof Unauthenticated) throw err;
      if (err instanceof joseErrors.JWTExpired) throw invalid('expired');
      throw invalid('signature or claims rejected');
    }
  }

  return {
    verifyToken,
    async verify(token) {
      const { realm, claims } = await verifyToken(token);
      return callerFrom(realm, claims);
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

export function callerFrom(realm: string, c: VerifiedToken['claims']): Caller {
  const access = c.realm_access as { roles?: unknown } | undefined;
  const roles = Array.isArray(access?.roles) ? access.roles.filter((r): r is string => typeof r === 'string') : [];
  return {
    realm,
    subject: str(c.sub),
    tenantId: str(c.tenant_id) || realm,
    roles,
    scopes: str(c.scope).split(' ').filter(Boolean),
    clientId: str(c.azp),
    username: str(c.preferred_username),
    sessionId: str(c.sid),
    tokenId: str(c.jti),
    expiresAt: Number(c.exp),
  };
}

/** Throws Forbidden unless the caller holds `role`. */
export function requireRole(caller: Caller, role: string): void {
  if (!caller.roles.includes(role)) throw new Forbidden(`Missing role '${role}'`);
}
