import type { JSONWebKeySet } from 'jose';
import type { Caller } from '../shared/auth/caller';
import type { Ctx } from '../shared/context';
import type { SessionView } from './admin-api/views';
import type {
  AccountSessionRef,
  AccountSessionsRequest,
  ClientIntrospectRequest,
  ClientTokenRequest,
  IntrospectRequest,
  RealmRef,
  RealmTokenRequest,
  RefreshRequest,
  RevocationsRequest,
  RevokeRequest,
  UserinfoRequest,
  UserLoginRequest,
} from './inputs';
import type { BrowserAnswer, BrowserRequest } from './browser/answers';

export type { BrowserAnswer, BrowserRequest };
export type {
  AccountSessionRef,
  AccountSessionsRequest,
  RealmTokenRequest,
  ClientIntrospectRequest,
  ClientTokenRequest,
  IntrospectRequest,
  RealmRef,
  RefreshRequest,
  RevocationsRequest,
  RevokeRequest,
  UserinfoRequest,
  UserLoginRequest,
};

/** spec: "Token response (both flows)". Wire names are the spec's, hyphen included. */
export interface TokenResponse {
  access_token: string;
  expires_in: number;
  refresh_expires_in: number;
  refresh_token: string;
  token_type: 'Bearer';
  'not-before-policy': number;
  /** OIDC Core §3.1.3.3: when a person signed in through the login page with the `openid` scope. */
  id_token?: string;
  session_state: string;
  scope: string;
}

/** spec: booleans in introspection are rendered as strings ("true"/"false"). */
export type BooleanWord = 'true' | 'false';

export interface ActiveIntrospection {
  exp: number;
  iat: number;
  jti: string;
  iss: string;
  sub: string;
  typ: string;
  azp: string;
  session_state: string;
  preferred_username: string;
  email_verified: BooleanWord;
  realm_access: { roles: string[] };
  scope: string;
  sid: string;
  clientId?: string;
  clientHost?: string;
  clientAddress?: string;
  client_id: string;
  username: string;
  tenant_id: string;
  active: 'true';
}

export type Introspection = ActiveIntrospection | { active: 'false' };

/**
 * RFC 7662 §2.2: the same claims with real booleans, plus `aud` and `token_type`; anything but an
 * active access token of the realm is exactly `{"active": false}`.
 */
export type ClientIntrospection =
  | (Omit<ActiveIntrospection, 'active' | 'email_verified'> & {
      active: true;
      email_verified: boolean;
      aud: string[];
      token_type: 'Bearer';
    })
  | { active: false };

/** OIDC Core §5.3: claims about the user (or service account) behind an access token. */
export interface UserInfo {
  sub: string;
  preferred_username: string;
  email?: string;
  email_verified: boolean;
  tenant_id: string;
  realm_access: { roles: string[] };
}

/** What the token service tells the public about a realm. */
export interface RealmInfo {
  id: string;
  name: string;
  enabled: boolean;
  issuer: string;
  jwksUri: string;
  accessTokenLifespan: number;
  refreshTokenLifespan: number;
  /** RFC 9068 `aud` values its access tokens may carry: one per service; a client may ask for some (RFC 8707). */
  audiences: string[];
  /** Its active signing key, RSA SubjectPublicKeyInfo DER in base64 (Keycloak's `public_key`). */
  publicKey: string;
}

/**
 * The revoked-sessions list as the token service publishes it (core/shared/auth/revocations.ts):
 * sessions by id, users and clients by the SHA-256 of their id, realms by id, instants in epoch
 * milliseconds. Nothing in it lets anyone act: it only ends tokens.
 */
export interface RevocationsPage {
  /** This list's id: a reader sends it back with `last`, and gets the whole list again when it changed. */
  feed: string;
  /** The last entry's number: the `after` of the next read. */
  last: number;
  /** Whether `entries` is the whole list (replace what you hold) or only what came after `after`. */
  full: boolean;
  entries: { realm: string; kind: 'session' | 'user' | 'client' | 'realm'; subject: string; up_to: number; until: number }[];
}

/** One of a person's own open single sign-on sessions: the admin API's session view, and whether the caller's token came from it. */
export interface AccountSession extends SessionView {
  current: boolean;
}

/** A page of them, newest first, as the admin API's lists answer: `next_cursor` null on the last one. */
export interface AccountSessionPage {
  items: AccountSession[];
  next_cursor: string | null;
  total: number;
}

/** The methods a person calls for themselves (Keycloak's account API), in account.ts. */
export type AccountMethod = 'accountSessions' | 'endAccountSession' | 'endAccountSessions';

/**
 * The token service as every face (REST, GraphQL, remote client) sees it. Each method takes one
 * input object in the spec's wire names, validated by the schema of the same name in inputs.ts,
 * and the call's context (docs/service-conventions.md).
 */
export interface TokenService {
  /** The token endpoint: client_credentials (default), password, or refresh_token, client authenticated. */
  issueForClient(req: ClientTokenRequest, ctx?: Ctx): Promise<TokenResponse>;
  /** The login endpoint: password (default) or refresh_token; a client is optional. */
  loginUser(req: UserLoginRequest, ctx?: Ctx): Promise<TokenResponse>;
  /**
   * A realm's own token endpoint (`realms/{realm}/protocol/openid-connect/token`, Keycloak's; the
   * discovery document's): every grant type, HTTP Basic or parameters, public clients without a secret
   * (all but client_credentials).
   */
  tokenAtRealm(req: RealmTokenRequest, ctx?: Ctx): Promise<TokenResponse>;
  /** The authorization endpoint: a redirect with a code (single sign-on) or an error, the login form, or an error page. */
  authorize(req: BrowserRequest, ctx?: Ctx): Promise<BrowserAnswer>;
  /** The login form posted back. */
  submitLogin(req: BrowserRequest, ctx?: Ctx): Promise<BrowserAnswer>;
  /** RP-initiated logout (and Keycloak's logout with a refresh token). */
  logout(req: BrowserRequest, ctx?: Ctx): Promise<BrowserAnswer>;
  /** Every web origin registered by an enabled client of an enabled realm (CORS). */
  webOrigins(): Promise<string[]>;
  /** RFC 6749 §6 with rotation; a confidential client must authenticate. */
  refresh(req: RefreshRequest, ctx?: Ctx): Promise<TokenResponse>;
  /** The spec's introspection: booleans as words, no client authentication. */
  introspect(req: IntrospectRequest, ctx?: Ctx): Promise<Introspection>;
  /** RFC 7662 introspection by an authenticated client of the realm (the discovery document's). */
  introspectForClient(req: ClientIntrospectRequest, ctx?: Ctx): Promise<ClientIntrospection>;
  /** RFC 7009: ends the session a token belongs to. Unknown or invalid tokens are ignored. */
  revoke(req: RevokeRequest, ctx?: Ctx): Promise<void>;
  /** The revoked-sessions list (or what was added to it after a reader's last read), for verifiers that do not reach the store. */
  revocations(req: RevocationsRequest, ctx?: Ctx): Promise<RevocationsPage>;
  /** OIDC userinfo for an active access token of the realm; InvalidToken otherwise. */
  userinfo(req: UserinfoRequest, ctx?: Ctx): Promise<UserInfo>;
  /**
   * The caller's own open single sign-on sessions, newest first (account.ts). The caller is a
   * person's bearer token; a client's own token is FORBIDDEN.
   */
  accountSessions(req: AccountSessionsRequest, ctx: Ctx<Caller>): Promise<AccountSessionPage>;
  /** Ends one of the caller's own sessions and every token of it; any other id is NOT_FOUND. */
  endAccountSession(req: AccountSessionRef, ctx: Ctx<Caller>): Promise<{ realm: string; id: string; sessions_ended: number }>;
  /** Ends every session of the caller ("sign out everywhere"), as an administrator's logout of the user does. */
  endAccountSessions(req: object, ctx: Ctx<Caller>): Promise<{ realm: string; username: string; sessions_ended: number }>;
  realm(req: Partial<RealmRef>, ctx?: Ctx): Promise<RealmInfo>;
  jwks(req: RealmRef, ctx?: Ctx): Promise<JSONWebKeySet>;
  health(req?: object, ctx?: Ctx): Promise<{ msg: string }>;
}
