import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { epochSeconds, type Clock } from '../clock';
import type { KeyRing } from './keys';
import { SIGNING_ALG } from './keys';
import type { ClientRecord, RealmRecord, SessionRecord, UserRecord } from './ports';
import type { RequestMeta, TokenResponse } from './service';

export interface Grant {
  realm: RealmRecord;
  client: ClientRecord;
  user?: UserRecord;
  session: SessionRecord;
  scope: string;
}

/** Signs the access and refresh tokens of a grant; claims follow Keycloak's (DECISIONS). */
export function createIssuer(deps: { keys: KeyRing; clock: Clock; issuerOf(realmId: string): string }) {
  async function sign(realmId: string, claims: Record<string, unknown>): Promise<string> {
    const { kid, key } = await deps.keys.signingKey(realmId);
    return new SignJWT(claims).setProtectedHeader({ alg: SIGNING_ALG, typ: 'JWT', kid }).sign(key);
  }

  return {
    async issue(g: Grant, meta: RequestMeta = {}): Promise<TokenResponse> {
      const iat = epochSeconds(deps.clock);
      const iss = deps.issuerOf(g.realm.id);
      const exp = iat + g.realm.accessTokenLifespan;
      const refreshExp = Math.floor(g.session.expiresAt / 1000);
      const serviceAccount = !g.user;
      const address = meta.clientAddress ?? 'unknown';
      const common = { iss, azp: g.client.clientId, session_state: g.session.id, sid: g.session.id, scope: g.scope };

      const access = await sign(g.realm.id, {
        exp,
        iat,
        jti: randomUUID(),
        aud: 'account',
        sub: g.user?.id ?? g.client.id,
        typ: 'Bearer',
        ...common,
        realm_access: { roles: g.user?.roles ?? g.client.roles },
        preferred_username: g.user?.username ?? `service-account-${g.client.clientId}`,
        email_verified: g.user?.emailVerified ?? false,
        ...(g.user?.email ? { email: g.user.email } : {}),
        tenant_id: g.user?.tenantId ?? g.client.tenantId,
        ...(serviceAccount ? { clientId: g.client.clientId, clientHost: address, clientAddress: address } : {}),
      });
      const refresh = await sign(g.realm.id, {
        exp: refreshExp,
        iat,
        jti: g.session.refreshJti,
        aud: iss,
        sub: g.user?.id ?? g.client.id,
        typ: 'Refresh',
        ...common,
      });
      return {
        access_token: access,
        expires_in: exp - iat,
        refresh_expires_in: Math.max(0, refreshExp - iat),
        refresh_token: refresh,
        token_type: 'Bearer',
        'not-before-policy': 0,
        session_state: g.session.id,
        scope: g.scope,
      };
    },
  };
}

export type Issuer = ReturnType<typeof createIssuer>;
