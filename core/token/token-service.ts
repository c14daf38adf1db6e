import { randomUUID } from 'node:crypto';
import type { Clock } from '../shared/clock';
import { uuidv7 } from '../shared/ids';
import { bearerToken, InvalidToken, MissingCredentials } from '../shared/auth/caller';
import { createTokenVerifier, issuerBaseFor } from '../shared/auth/verifier';
import { Unauthenticated } from '../shared/errors';
import type { Ctx } from '../shared/context';
import type { Authenticator } from './authenticate';
import { grantAudience, parseTargets } from './audience';
import { InvalidGrant, InvalidRequest, RealmNotFound, UnsupportedGrantType } from './errors';
import { clientIntrospectionOf, introspectionOf, userinfoOf } from './introspection';
import { createIssuer } from './issuer';
import type { KeyRing } from './keys';
import type { ClientRecord, RealmRecord, TokenStore, UserRecord } from './ports';
import { revokedUntil } from './revocations';
import { grantScopes, parseScopes } from './scopes';
import type { RealmInfo, TokenResponse, TokenService } from './service';
import { tokenTelemetry, type TokenTelemetry } from './telemetry';

export { LOGIN_CLIENT_ID } from './authenticate';

export interface TokenServiceDeps {
  store: TokenStore;
  keys: KeyRing;
  auth: Authenticator;
  clock: Clock;
  publicUrl: string;
  /** RFC 9068 `aud` of every access token: the platform's services. */
  audience: readonly string[];
  /** Counts tokens issued and refused (telemetry.ts); nothing when absent. */
  telemetry?: TokenTelemetry;
  /** After sessions were ended: resolves once this process's revoked-sessions list holds them. */
  revoked?: () => Promise<void>;
}

/** Path segment and parameter value meaning the default realm. */
export const DEFAULT_REALM_ALIAS = 'default';

export function createTokenService(deps: TokenServiceDeps): TokenService {
  const { store, clock, auth } = deps;
  /** Ends a session, its access tokens refused here before this returns (and everywhere within a second). */
  const endSession = async (realm: RealmRecord, sid: string) => {
    const now = clock.now();
    await store.sessions.revoke(sid, now, revokedUntil(realm, now));
    // The entry is committed: a failure to read it back here is the follower's to report and retry.
    await deps.revoked?.().catch(() => undefined);
  };
  const telemetry = deps.telemetry ?? tokenTelemetry();
  /** A token endpoint, counted once per request as issued or refused under its grant type. */
  const counted = <R>(grantOf: (req: R) => string, issue: (req: R, ctx?: Ctx) => Promise<TokenResponse>) =>
    async (req: R, ctx?: Ctx): Promise<TokenResponse> => {
      try {
        const tokens = await issue(req, ctx);
        telemetry.issued(grantOf(req));
        return tokens;
      } catch (err) {
        telemetry.failed(grantOf(req), err);
        throw err;
      }
    };
  const issuerBase = issuerBaseFor(deps.publicUrl);
  const issuer = createIssuer({ keys: deps.keys, clock, issuerOf: (id) => issuerBase + id, audience: deps.audience });
  // The issuing service itself tolerates no clock skew.
  const verifier = createTokenVerifier({
    issuerBase,
    clock,
    clockToleranceSec: 0,
    keys: { key: (realmId, kid) => deps.keys.verificationKey(realmId, kid) },
  });

  async function resolveRealm(id: string | undefined): Promise<RealmRecord> {
    const realmId = !id || id === DEFAULT_REALM_ALIAS ? await store.realms.getDefaultId() : id;
    const realm = realmId ? await store.realms.get(realmId) : undefined;
    if (!realm?.enabled) throw new RealmNotFound();
    return realm;
  }

  /** What a request asks of a grant: scopes and (RFC 8707) the services its access token is for. */
  type Ask = { scopes?: string; resource?: string[]; audience?: string[] };

  /** A new session, written while its tokens are signed; answered only once both are done. */
  async function grant(realm: RealmRecord, client: ClientRecord, user: UserRecord | undefined, ask: Ask, ctx: Ctx) {
    const scope = grantScopes(client.scopes, ask.scopes);
    const targets = parseTargets(ask.resource, ask.audience);
    const audience = grantAudience(deps.audience, targets);
    const now = clock.now();
    const session = {
      id: uuidv7(now), realmId: realm.id, clientId: client.clientId, userId: user?.id ?? null, scope: scope.join(' '),
      refreshJti: randomUUID(), createdAt: now, expiresAt: now + realm.refreshTokenLifespan * 1000, revokedAt: null,
    };
    const narrowed = targets.length ? { audience, granted: audience } : {};
    const [tokens] = await Promise.all([issuer.issue({ realm, client, user, session, scope: scope.join(' '), ...narrowed }, ctx), store.sessions.write(session)]);
    return tokens;
  }

  /** Rotation: each refresh token works once; presenting a used one ends the whole session. */
  async function refreshSession(realm: RealmRecord, token: string, ask: Ask, ctx: Ctx,
    client: (sessionClientId: string) => Promise<ClientRecord>): Promise<TokenResponse> {
    const claims = await issuer.verifyRefresh(realm, token);
    // RFC 8707 §2.2: a refresh may narrow the audience the grant was given, never widen it.
    const granted = Array.isArray(claims.resource) ? claims.resource.filter((a): a is string => typeof a === 'string') : undefined;
    const audience = grantAudience(granted ?? deps.audience, parseTargets(ask.resource, ask.audience));
    const session = await store.sessions.get(String(claims.sid));
    if (!session || session.revokedAt !== null || session.realmId !== realm.id) throw new InvalidGrant();
    if (session.refreshJti !== claims.jti) {
      await endSession(realm, session.id);
      throw new InvalidGrant('Refresh token was already used; the session has been ended');
    }
    const c = await client(session.clientId);
    if (c.clientId !== session.clientId) throw new InvalidGrant('Refresh token was issued to another client');
    const user = session.userId ? await store.users.getById(session.userId) : undefined;
    if (!c.enabled || (session.userId && !user?.enabled)) throw new InvalidGrant();

    const scope = grantScopes(parseScopes(session.scope), ask.scopes);
    const next = { ...session, refreshJti: randomUUID(), expiresAt: clock.now() + realm.refreshTokenLifespan * 1000 };
    if (!(await store.sessions.rotate(session.id, session.refreshJti, next.refreshJti, next.expiresAt))) throw new InvalidGrant();
    return issuer.issue({ realm, client: c, user, session: next, scope: scope.join(' '), audience, granted }, ctx);
  }

  const refresh: TokenService['refresh'] = async (req, ctx = {}) => {
    const realm = await resolveRealm(req.realm);
    return auth.throttled(ctx, (attempt) => refreshSession(realm, req.refresh_token, req, ctx,
      (sessionClient) => auth.loginClient(attempt, realm, req.client_id || sessionClient, req.client_secret)));
  };

  const realmInfo = (r: RealmRecord): RealmInfo => ({
    id: r.id, name: r.name, enabled: r.enabled, issuer: issuerBase + r.id, jwksUri: `${issuerBase}${r.id}/protocol/openid-connect/certs`,
    accessTokenLifespan: r.accessTokenLifespan, refreshTokenLifespan: r.refreshTokenLifespan, audiences: [...deps.audience],
  });

  /** The claims and introspection of an access token of `realm` that is active, or undefined. */
  async function active(realm: RealmRecord, token: string) {
    try {
      const { claims } = await verifier.verifyToken(token, { realm: realm.id });
      const introspection = await introspectionOf(store, realm, claims);
      return introspection && { claims, introspection };
    } catch (err) {
      if (err instanceof Unauthenticated) return undefined;
      throw err;
    }
  }

  return {
    issueForClient: counted((req) => req.grant_type || 'client_credentials', async (req, ctx = {}) => {
      const realm = await resolveRealm(req.realm);
      const grantType = req.grant_type || 'client_credentials';
      if (!['client_credentials', 'password', 'refresh_token'].includes(grantType)) throw new UnsupportedGrantType(grantType);
      const client = await auth.throttled(ctx, (attempt) => auth.client(attempt, realm, req.client_id, req.client_secret));
      if (grantType === 'refresh_token') {
        if (!req.refresh_token) throw new InvalidRequest('refresh_token is required for grant_type refresh_token');
        return refreshSession(realm, req.refresh_token, req, ctx, async () => client);
      }
      if (grantType === 'password') {
        const user = await auth.throttled(ctx, (attempt) => auth.user(attempt, realm, req.username ?? '', req.password ?? ''));
        return grant(realm, client, user, req, ctx);
      }
      return grant(realm, client, undefined, req, ctx);
    }),

    // Its refresh_token grant runs `refresh` itself, not the counted method: each request counts once.
    loginUser: counted((req) => req.grant_type || 'password', async (req, ctx = {}) => {
      const grantType = req.grant_type || 'password';
      if (grantType === 'refresh_token') {
        if (!req.refresh_token) throw new InvalidRequest('refresh_token is required for grant_type refresh_token');
        return refresh({ ...req, refresh_token: req.refresh_token }, ctx);
      }
      if (grantType !== 'password') throw new UnsupportedGrantType(grantType);
      const realm = await resolveRealm(req.realm);
      const { client, user } = await auth.throttled(ctx, async (attempt) => ({
        client: await auth.loginClient(attempt, realm, req.client_id, req.client_secret),
        user: await auth.user(attempt, realm, req.username ?? '', req.password ?? ''),
      }));
      return grant(realm, client, user, req, ctx);
    }),

    refresh: counted(() => 'refresh_token', refresh),

    async introspect(req) {
      // spec: the introspection realm is mandatory, so it never falls back to the default realm.
      if (!req.realm) throw new InvalidRequest('realm is required for introspection');
      const realm = await resolveRealm(req.realm);
      if (!req.token) return { active: 'false' };
      return (await active(realm, req.token))?.introspection ?? { active: 'false' };
    },

    async introspectForClient(req, ctx = {}) {
      const realm = await resolveRealm(req.realm);
      // RFC 7662 §2.1: the caller authenticates, so tokens cannot be scanned anonymously; failures count toward the throttle.
      await auth.throttled(ctx, (attempt) => auth.client(attempt, realm, req.client_id, req.client_secret));
      const found = await active(realm, req.token);
      return found ? clientIntrospectionOf(found.introspection, found.claims) : { active: false };
    },

    async revoke(req) {
      const realm = await resolveRealm(req.realm);
      if (!req.token) return;
      const refreshClaims = await issuer.verifyRefresh(realm, req.token).catch(() => undefined);
      const sid = refreshClaims?.sid ?? (await verifier.verifyToken(req.token, { realm: realm.id }).catch(() => undefined))?.claims.sid;
      if (sid) await endSession(realm, String(sid));
    },

    async revocations(req) {
      const cursor = req.feed !== undefined && req.after !== undefined ? { feed: req.feed, after: req.after } : undefined;
      const batch = await store.revocations.read(cursor);
      return {
        feed: batch.cursor.feed, last: batch.cursor.after, full: batch.full,
        entries: batch.entries.map((e) => ({ realm: e.realm, kind: e.kind, subject: e.subject, up_to: e.upTo, until: e.until })),
      };
    },

    async userinfo(req) {
      const realm = await resolveRealm(req.realm);
      if (!req.authorization?.trim()) throw new MissingCredentials();
      const token = bearerToken(req.authorization);
      const found = token ? await active(realm, token) : undefined;
      if (!found) throw new InvalidToken('not an active access token of this realm');
      return userinfoOf(found.claims);
    },

    realm: async (req) => realmInfo(await resolveRealm(req.realm)),
    jwks: async (req) => deps.keys.jwks((await resolveRealm(req.realm)).id),
    health: async () => ({ msg: 'ok' }),
  };
}
