import { createHash, randomUUID } from 'node:crypto';
import { jwtVerify, type JWTPayload } from 'jose';
import { epochSeconds, type Clock } from '../shared/clock';
import { ACCESS_TOKEN_TYPE } from '../shared/auth/verifier';
import type { Ctx } from '../shared/context';
import { InvalidGrant } from './errors';
import { signHs512, signRs256 } from './jwt';
import type { KeyRing } from './keys';
import type { ClientRecord, RealmRecord, SessionRecord, UserRecord } from './ports';
import type { TokenResponse } from './service';

export interface Grant {
  realm: RealmRecord;
  client: ClientRecord;
  user?: UserRecord;
  session: SessionRecord;
  scope: string;
  /** RFC 8707: the access token's `aud` when the client asked for some services; every service when absent. */
  audience?: readonly string[];
  /** The audiences a refresh may ask for (its token's `resource` claim); every service when absent. */
  granted?: readonly string[];
  /**
   * A person signed in through the login page (the authorization-code grant, and refreshes of its
   * session): with the `openid` scope the answer carries an ID token; the nonce goes in every token
   * (as Keycloak's does: keycloak-js compares it), and both travel in the refresh token.
   */
  oidc?: OidcSignIn;
}

export interface OidcSignIn {
  nonce: string | null;
  /** When the person typed their password, epoch ms (`auth_time`). */
  authTime: number;
}

/** OIDC Core §3.1.3.6: the left half of the SHA-256 of the access token, base64url. */
export const atHash = (accessToken: string): string =>
  createHash('sha256').update(accessToken).digest().subarray(0, 16).toString('base64url');

export interface IssuerDeps {
  keys: KeyRing;
  clock: Clock;
  issuerOf(realmId: string): string;
  /** RFC 9068 `aud`: the platform's services that accept the access tokens. */
  audience: readonly string[];
}

const refreshKey = (realm: RealmRecord) => Buffer.from(realm.refreshSecret, 'hex');

/**
 * Signs a grant's tokens; claims follow Keycloak's (DECISIONS). Access tokens are RS256 JWTs any
 * service verifies offline (header typ at+jwt, RFC 9068); refresh tokens are HS512 under the
 * realm's secret, as Keycloak signs them: only this service reads them.
 */
export function createIssuer(deps: IssuerDeps) {
  return {
    async issue(g: Grant, ctx: Ctx = {}): Promise<TokenResponse> {
      const iat = epochSeconds(deps.clock);
      const iss = deps.issuerOf(g.realm.id);
      const exp = iat + g.realm.accessTokenLifespan;
      const refreshExp = Math.floor(g.session.expiresAt / 1000);
      const address = ctx.clientAddress ?? 'unknown';
      const common = { iss, azp: g.client.clientId, session_state: g.session.id, sid: g.session.id, scope: g.scope };
      const { kid, key } = await deps.keys.signingKey(g.realm.id);
      const nonce = g.oidc?.nonce ? { nonce: g.oidc.nonce } : {};

      const access = await signRs256(
        { typ: ACCESS_TOKEN_TYPE, kid },
        {
          exp,
          iat,
          jti: randomUUID(),
          aud: g.audience ?? deps.audience,
          sub: g.user?.id ?? g.client.id,
          typ: 'Bearer',
          ...common,
          client_id: g.client.clientId,
          realm_access: { roles: g.user?.roles ?? g.client.roles },
          preferred_username: g.user?.username ?? `service-account-${g.client.clientId}`,
          email_verified: g.user?.emailVerified ?? false,
          ...(g.user?.email ? { email: g.user.email } : {}),
          tenant_id: g.user?.tenantId ?? g.client.tenantId,
          ...(g.user ? {} : { clientId: g.client.clientId, clientHost: address, clientAddress: address }),
          ...nonce,
        },
        key,
      );
      const idToken =
        g.oidc && g.user && g.scope.split(' ').includes('openid')
          ? await signRs256(
              { typ: 'JWT', kid },
              {
                exp,
                iat,
                auth_time: Math.floor(g.oidc.authTime / 1000),
                jti: randomUUID(),
                iss,
                aud: g.client.clientId,
                sub: g.user.id,
                typ: 'ID',
                azp: g.client.clientId,
                ...nonce,
                session_state: g.session.id,
                sid: g.session.id,
                at_hash: atHash(access),
                preferred_username: g.user.username,
                email_verified: g.user.emailVerified,
                ...(g.user.email ? { email: g.user.email } : {}),
                tenant_id: g.user.tenantId,
              },
              key,
            )
          : undefined;
      const refresh = signHs512(
        { typ: 'JWT' },
        {
          exp: refreshExp,
          iat,
          jti: g.session.refreshJti,
          aud: iss,
          sub: g.user?.id ?? g.client.id,
          typ: 'Refresh',
          ...common,
          ...(g.granted ? { resource: g.granted } : {}),
          ...(g.oidc ? { ...nonce, auth_time: Math.floor(g.oidc.authTime / 1000) } : {}),
        },
        refreshKey(g.realm),
      );
      return {
        access_token: access,
        expires_in: exp - iat,
        refresh_expires_in: Math.max(0, refreshExp - iat),
        refresh_token: refresh,
        token_type: 'Bearer',
        'not-before-policy': 0,
        ...(idToken ? { id_token: idToken } : {}),
        session_state: g.session.id,
        scope: g.scope,
      };
    },

    /** The claims of a refresh token of `realm`, or InvalidGrant (never a hint of why). */
    async verifyRefresh(realm: RealmRecord, token: string): Promise<JWTPayload> {
      try {
        const { payload } = await jwtVerify(token, refreshKey(realm), {
          algorithms: ['HS512'],
          issuer: deps.issuerOf(realm.id),
          currentDate: new Date(deps.clock.now()),
          requiredClaims: ['exp', 'iat', 'jti', 'sid'],
        });
        if (payload.typ !== 'Refresh') throw new InvalidGrant();
        return payload;
      } catch {
        // Whatever is wrong with it (signature, expiry, shape), the caller learns only that it is invalid.
        throw new InvalidGrant();
      }
    },
  };
}

export type Issuer = ReturnType<typeof createIssuer>;
