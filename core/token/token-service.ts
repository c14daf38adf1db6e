import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock';
import { Unauthenticated } from '../errors';
import { createTokenVerifier, issuerBaseFor, type VerifiedToken } from '../auth/verifier';
import { AuthenticationFailed, InvalidGrant, InvalidRequest, RealmNotFound, UnsupportedGrantType } from './errors';
import { introspectionOf } from './introspection';
import { createIssuer } from './issuer';
import type { KeyRing } from './keys';
import type { ClientRecord, RealmRecord, TokenStore, UserRecord } from './ports';
import { grantScopes, parseScopes } from './scopes';
import type { SecretVerifier } from './secrets';
import { noThrottle, type FailureThrottle } from './throttle';
import type { ClientTokenRequest, RealmInfo, RequestMeta, TokenResponse, TokenService, UserLoginRequest } from './service';

/** The public client every realm has, used by the login endpoint when no client_id is given. */
export const LOGIN_CLIENT_ID = 'platform-login';

export interface TokenServiceDeps {
  store: TokenStore;
  keys: KeyRing;
  secrets: SecretVerifier;
  clock: Clock;
  publicUrl: string;
  lockout: { threshold: number; seconds: number };
  throttle?: FailureThrottle;
}

export function createTokenService(deps: TokenServiceDeps): TokenService {
  const { store, clock, secrets } = deps;
  const throttle = deps.throttle ?? noThrottle;

  const issuerBase = issuerBaseFor(deps.publicUrl);
  const issuer = createIssuer({ keys: deps.keys, clock, issuerOf: (id) => issuerBase + id });
  // The issuing service itself tolerates no clock skew.
  const verifier = createTokenVerifier({
    issuerBase,
    clock,
    clockToleranceSec: 0,
    keys: { key: (realmId, kid) => deps.keys.verificationKey(realmId, kid) },
  });

  /** Runs an authenticating step under the per-address failure throttle. */
  async function throttled<T>(meta: RequestMeta, step: () => Promise<T>): Promise<T> {
    const key = meta.clientAddress ?? 'unknown';
    throttle.check(key);
    try {
      return await step();
    } catch (err) {
      if (err instanceof AuthenticationFailed) throttle.fail(key);
      throw err;
    }
  }

  function resolveRealm(id: string | undefined): RealmRecord {
    const realmId = id || store.realms.getDefaultId();
    const realm = realmId ? store.realms.get(realmId) : undefined;
    if (!realm?.enabled) throw new RealmNotFound();
    return realm;
  }

  async function authenticateClient(realm: RealmRecord, clientId: string, secret: string | undefined): Promise<ClientRecord> {
    const client = store.clients.get(realm.id, clientId);
    const ok = await secrets.verify(secret ?? '', client?.secretHash);
    if (!client || !ok || !client.enabled) throw new AuthenticationFailed('invalid_client');
    return client;
  }

  /** A named client for the login endpoint: public ones need no secret, confidential ones do. */
  async function loginClient(realm: RealmRecord, clientId: string | undefined, secret: string | undefined): Promise<ClientRecord> {
    const client = store.clients.get(realm.id, clientId || LOGIN_CLIENT_ID);
    if (client && client.secretHash === null && client.enabled) return client;
    return authenticateClient(realm, clientId || LOGIN_CLIENT_ID, secret);
  }

  async function authenticateUser(realm: RealmRecord, username: string, password: string): Promise<UserRecord> {
    const user = store.users.get(realm.id, username);
    const now = clock.now();
    const locked = user?.lockedUntil != null && user.lockedUntil > now;
    const ok = await secrets.verify(password, locked ? undefined : user?.passwordHash);
    if (user && !locked) {
      if (ok) store.users.recordLoginSuccess(user.id);
      else {
        const failed = user.failedLogins + 1;
        const lock = failed >= deps.lockout.threshold;
        store.users.recordLoginFailure(user.id, lock ? 0 : failed, lock ? now + deps.lockout.seconds * 1000 : null);
      }
    }
    if (!user || !ok || locked || !user.enabled) throw new AuthenticationFailed('invalid_grant');
    return user;
  }

  function openSession(realm: RealmRecord, client: ClientRecord, user: UserRecord | undefined, scope: string[]) {
    const now = clock.now();
    const session = {
      id: randomUUID(),
      realmId: realm.id,
      clientId: client.clientId,
      userId: user?.id ?? null,
      scope: scope.join(' '),
      refreshJti: randomUUID(),
      createdAt: now,
      expiresAt: now + realm.refreshTokenLifespan * 1000,
      revokedAt: null,
    };
    store.sessions.insert(session);
    return session;
  }

  async function verifyRefresh(realm: RealmRecord, token: string | undefined): Promise<VerifiedToken> {
    if (!token) throw new InvalidRequest('refresh_token is required for grant_type refresh_token');
    try {
      return await verifier.verifyToken(token, { realm: realm.id, typ: 'Refresh' });
    } catch (err) {
      if (err instanceof Unauthenticated) throw new InvalidGrant();
      throw err;
    }
  }

  /** RFC 6749 §6 with rotation: each refresh token works once; reuse ends the whole session. */
  async function refresh(realm: RealmRecord, token: string | undefined, scopes: string | undefined, meta: RequestMeta,
    authenticated?: ClientRecord, credentials?: { clientId?: string; secret?: string }): Promise<TokenResponse> {
    const { claims } = await verifyRefresh(realm, token);
    const session = store.sessions.get(String(claims.sid));
    if (!session || session.revokedAt !== null || session.realmId !== realm.id) throw new InvalidGrant();
    if (session.refreshJti !== claims.jti) {
      store.sessions.revoke(session.id, clock.now());
      throw new InvalidGrant('Refresh token was already used; the session has been ended');
    }
    const client = authenticated ?? (await loginClient(realm, credentials?.clientId || session.clientId, credentials?.secret));
    if (client.clientId !== session.clientId) throw new InvalidGrant('Refresh token was issued to another client');
    const user = session.userId ? store.users.getById(session.userId) : undefined;
    if (!client.enabled || (session.userId && !user?.enabled)) throw new InvalidGrant();

    const scope = grantScopes(parseScopes(session.scope), scopes);
    const now = clock.now();
    const next = { ...session, refreshJti: randomUUID(), expiresAt: now + realm.refreshTokenLifespan * 1000 };
    if (!store.sessions.rotate(session.id, session.refreshJti, next.refreshJti, next.expiresAt)) throw new InvalidGrant();
    return issuer.issue({ realm, client, user, session: next, scope: scope.join(' ') }, meta);
  }

  const realmInfo = (r: RealmRecord): RealmInfo => ({
    id: r.id,
    name: r.name,
    enabled: r.enabled,
    issuer: issuerBase + r.id,
    jwksUri: `${issuerBase}${r.id}/protocol/openid-connect/certs`,
    accessTokenLifespan: r.accessTokenLifespan,
    refreshTokenLifespan: r.refreshTokenLifespan,
  });

  return {
    async issueForClient(req: ClientTokenRequest, meta: RequestMeta = {}) {
      const realm = resolveRealm(req.realm);
      const grant = req.grant_type || 'client_credentials';
      if (grant !== 'client_credentials' && grant !== 'refresh_token') throw new UnsupportedGrantType(grant);
      const client = await throttled(meta, () => authenticateClient(realm, req.client_id, req.client_secret));
      if (grant === 'refresh_token') return refresh(realm, req.refresh_token, req.scopes, meta, client);
      const scope = grantScopes(client.scopes, req.scopes);
      const session = openSession(realm, client, undefined, scope);
      return issuer.issue({ realm, client, session, scope: scope.join(' ') }, meta);
    },

    async loginUser(req: UserLoginRequest, meta: RequestMeta = {}) {
      const realm = resolveRealm(req.realm);
      const grant = req.grant_type || 'password';
      if (grant === 'refresh_token') {
        return throttled(meta, () => refresh(realm, req.refresh_token, req.scopes, meta, undefined, { clientId: req.client_id, secret: req.client_secret }));
      }
      if (grant !== 'password') throw new UnsupportedGrantType(grant);
      const { client, user } = await throttled(meta, async () => ({
        client: await loginClient(realm, req.client_id, req.client_secret),
        user: await authenticateUser(realm, req.username ?? '', req.password ?? ''),
      }));
      const scope = grantScopes(client.scopes, req.scopes);
      const session = openSession(realm, client, user, scope);
      return issuer.issue({ realm, client, user, session, scope: scope.join(' ') }, meta);
    },

    async introspect(req) {
      // spec: the introspection realm is mandatory, so it never falls back to the default realm.
      if (!req.realm) throw new InvalidRequest('realm is required for introspection');
      const realm = resolveRealm(req.realm);
      if (!req.token) return { active: 'false' };
      try {
        const { claims } = await verifier.verifyToken(req.token, { realm: realm.id, typ: 'Bearer' });
        return introspectionOf(store, realm, claims) ?? { active: 'false' };
      } catch (err) {
        if (err instanceof Unauthenticated) return { active: 'false' };
        throw err;
      }
    },

    async revoke(req) {
      const realm = resolveRealm(req.realm);
      if (!req.token) return;
      for (const typ of ['Refresh', 'Bearer'] as const) {
        const verified = await verifier.verifyToken(req.token, { realm: realm.id, typ }).catch(() => undefined);
        if (verified) return store.sessions.revoke(String(verified.claims.sid), clock.now());
      }
    },

    async realm(id) {
      return realmInfo(resolveRealm(id));
    },

    async jwks(realmId) {
      return deps.keys.jwks(resolveRealm(realmId).id);
    },

    async health() {
      return { msg: 'ok' };
    },
  };
}
