import { createPublicKey, type KeyObject } from 'node:crypto';
import type { Clock } from '../shared/clock';
import { bearerToken, InvalidToken, MissingCredentials } from '../shared/auth/caller';
import { createTokenVerifier, issuerBaseFor } from '../shared/auth/verifier';
import { Unauthenticated } from '../shared/errors';
import type { Ctx } from '../shared/context';
import type { Authenticator } from './authenticate';
import { AuthenticationFailed, InvalidRequest, RealmNotFound } from './errors';
import { GRANTS, grantFor, LOGIN_GRANTS, type GrantClient, type GrantDeps } from './grants';
import { clientIntrospectionOf, introspectionOf, userinfoOf } from './introspection';
import { createIssuer } from './issuer';
import type { KeyRing } from './keys';
import type { RealmRecord, TokenStore, UserRecord } from './ports';
import { CODE_TTL_MS, createBrowserSignIn, idTokenClaims, SSO_SESSION_SECONDS } from './browser';
import { signedPages } from './browser/signed-pages';
import { UUID } from '../shared/auth/verifier';
import { endBrowserSession, revokedUntil } from './revocations';
import type { AccountMethod, RealmInfo, TokenResponse, TokenService } from './service';
import { tokenTelemetry, type TokenTelemetry } from './telemetry';
import { noSecurityEvents, type SecurityEvents } from './security-events';

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
  /** Whether a user is locked for every source (their single sign-on is not honoured meanwhile); never when absent. */
  lockedForAll?: (user: UserRecord) => Promise<boolean>;
  /** How long single sign-on lasts after the password was typed (SSO_SESSION_SECONDS by default). */
  ssoSessionSeconds?: number;
  /** Where revocations and logouts are recorded (the audit trail); nowhere when absent. */
  events?: SecurityEvents;
}

/** Path segment and parameter value meaning the default realm. */
export const DEFAULT_REALM_ALIAS = 'default';

/** The token service but a person's own account (account.ts), which the core adds beside it (index.ts). */
export function createTokenService(deps: TokenServiceDeps): Omit<TokenService, AccountMethod> {
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
  const counted =
    <R>(grantOf: (req: R) => string, issue: (req: R, ctx?: Ctx) => Promise<TokenResponse>) =>
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

  /** The realm an input names: its id, `default` (or nothing) for the default realm, or its name (Keycloak's paths name realms so). */
  async function resolveRealm(id: string | undefined): Promise<RealmRecord> {
    const realmId = !id || id === DEFAULT_REALM_ALIAS ? await store.realms.getDefaultId() : id;
    let realm = realmId ? await store.realms.get(realmId) : undefined;
    if (!realm && realmId && !UUID.test(realmId) && realmId.length <= 128) realm = await store.realms.getByName(realmId);
    if (!realm?.enabled) throw new RealmNotFound();
    return realm;
  }

  const grants: GrantDeps = { store, auth, issuer, clock, audience: deps.audience, endSession };
  /** The login and refresh endpoints' client: named or the public login client, authenticated within the grant's step. */
  const loginClient = (realm: RealmRecord, req: { client_id?: string; client_secret?: string }): GrantClient => ({
    authenticate: (attempt, sessionClientId) => auth.loginClient(attempt, realm, req.client_id || sessionClientId, req.client_secret),
  });

  const browser = createBrowserSignIn({
    store,
    auth,
    clock,
    pages: signedPages(clock),
    publicUrl: deps.publicUrl.replace(/\/+$/, ''),
    issuerOf: (id) => issuerBase + id,
    resolveRealm,
    endSession,
    endBrowserSession: async (realm, id) => {
      await endBrowserSession(store, realm, id, clock.now());
      await deps.revoked?.().catch(() => undefined);
    },
    lockedForAll: deps.lockedForAll ?? (async () => false),
    idTokenHint: (realm, token) => idTokenClaims(deps.keys, realm, issuerBase + realm.id, token),
    verifyRefresh: (realm, token) => issuer.verifyRefresh(realm, token),
    ssoSessionMs: (deps.ssoSessionSeconds ?? SSO_SESSION_SECONDS) * 1000,
    codeTtlMs: CODE_TTL_MS,
    events: deps.events ?? noSecurityEvents,
  });

  const realmInfo = async (r: RealmRecord): Promise<RealmInfo> => ({
    id: r.id,
    name: r.name,
    enabled: r.enabled,
    issuer: issuerBase + r.id,
    jwksUri: `${issuerBase}${r.id}/protocol/openid-connect/certs`,
    accessTokenLifespan: r.accessTokenLifespan,
    refreshTokenLifespan: r.refreshTokenLifespan,
    audiences: [...deps.audience],
    publicKey: await publicKeyOf(r.id),
  });
  // The key ring keeps one KeyObject per signing key: its public half is encoded once, not on every read of a realm.
  const publicKeys = new WeakMap<KeyObject, string>();
  async function publicKeyOf(realmId: string): Promise<string> {
    const { key } = await deps.keys.signingKey(realmId);
    let encoded = publicKeys.get(key);
    if (encoded === undefined) {
      encoded = createPublicKey(key).export({ type: 'spki', format: 'der' }).toString('base64');
      publicKeys.set(key, encoded);
    }
    return encoded;
  }

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
    // The token endpoint: the client authenticates in a step of its own, before the grant's parameters are checked.
    issueForClient: counted(
      (req) => req.grant_type || 'client_credentials',
      async (req, ctx = {}) => {
        const realm = await resolveRealm(req.realm);
        const grant = grantFor(req.grant_type || 'client_credentials');
        const client = await auth.throttled(ctx, (attempt) => auth.client(attempt, realm, req.client_id, req.client_secret));
        grant.check(req);
        return grant.issue({ req, realm, client: { authenticated: client }, ctx }, grants);
      },
    ),

    // The login endpoint: the grant's parameters checked before the realm is looked up; the client (optional) authenticated within the grant's step.
    loginUser: counted(
      (req) => req.grant_type || 'password',
      async (req, ctx = {}) => {
        const grant = grantFor(req.grant_type || 'password', LOGIN_GRANTS);
        grant.check(req);
        const realm = await resolveRealm(req.realm);
        return grant.issue({ req, realm, client: loginClient(realm, req), ctx }, grants);
      },
    ),

    // A realm's own token endpoint (Keycloak's path; the discovery document's): every grant; public clients send no secret.
    tokenAtRealm: counted(
      (req) => req.grant_type,
      async ({ scope, ...asked }, ctx = {}) => {
        const req = { ...asked, scopes: asked.scopes ?? scope };
        const realm = await resolveRealm(req.realm);
        const grant = grantFor(req.grant_type);
        grant.check(req);
        const client: GrantClient =
          req.grant_type === 'client_credentials'
            ? { authenticated: await auth.throttled(ctx, (attempt) => auth.client(attempt, realm, req.client_id ?? '', req.client_secret)) }
            : {
                authenticate: (attempt, sessionClientId) =>
                  req.client_id || sessionClientId
                    ? auth.loginClient(attempt, realm, req.client_id || sessionClientId, req.client_secret)
                    : Promise.reject(new AuthenticationFailed('invalid_client')),
              };
        return grant.issue({ req, realm, client, ctx }, grants);
      },
    ),

    authorize: (req) => browser.authorize(req),
    submitLogin: (req, ctx = {}) => browser.login(req, ctx),
    logout: (req, ctx = {}) => browser.logout(req, ctx),
    webOrigins: () => store.clients.webOrigins(),

    refresh: counted(
      () => 'refresh_token',
      async (req, ctx = {}) => {
        const realm = await resolveRealm(req.realm);
        return GRANTS.refresh_token.issue({ req, realm, client: loginClient(realm, req), ctx }, grants);
      },
    ),

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

    async revoke(req, ctx = {}) {
      const realm = await resolveRealm(req.realm);
      if (!req.token) return;
      const refreshClaims = await issuer.verifyRefresh(realm, req.token).catch(() => undefined);
      const claims = refreshClaims ?? (await verifier.verifyToken(req.token, { realm: realm.id }).catch(() => undefined))?.claims;
      const sid = claims?.sid;
      if (typeof sid !== 'string' || !sid) return;
      const session = await store.sessions.get(sid);
      await endSession(realm, sid);
      // Whoever held the token revoked it: the session's person, or its client.
      const name = session?.userId ? (await store.users.getById(session.userId))?.username : undefined;
      deps.events?.revoke({
        realm: realm.id,
        actor: session?.userId
          ? { kind: 'user', realm: realm.id, id: session.userId, name }
          : { kind: 'client', realm: realm.id, name: session?.clientId ?? (typeof claims.azp === 'string' ? claims.azp : undefined) },
        address: ctx.clientAddress,
        session: sid,
      });
    },

    async revocations(req) {
      const cursor = req.feed !== undefined && req.after !== undefined ? { feed: req.feed, after: req.after } : undefined;
      const batch = await store.revocations.read(cursor);
      return {
        feed: batch.cursor.feed,
        last: batch.cursor.after,
        full: batch.full,
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

    realm: async (req) => await realmInfo(await resolveRealm(req.realm)),
    jwks: async (req) => deps.keys.jwks((await resolveRealm(req.realm)).id),
    health: async () => ({ msg: 'ok' }),
  };
}
