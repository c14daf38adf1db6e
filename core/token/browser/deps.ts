import type { JWTPayload } from 'jose';
import type { Clock } from '../../shared/clock';
import type { Authenticator } from '../authenticate';
import type { RealmRecord, TokenStore, UserRecord } from '../ports';
import type { SecurityEvents } from '../security-events';
import type { SignedPages } from './signed-pages';

/** What the browser endpoints (sign-in, single sign-on, logout) need from the token service. */
export interface BrowserDeps {
  store: TokenStore;
  auth: Authenticator;
  clock: Clock;
  pages: SignedPages;
  /** The platform's public base URL (no trailing slash): registered paths are on it, and posted forms must come from its origin. */
  publicUrl: string;
  issuerOf(realmId: string): string;
  /** The realm a path names (its id, its name, or `default`); RealmNotFound otherwise. */
  resolveRealm(ref: string): Promise<RealmRecord>;
  /** Ends a token session (its access tokens refused at once). */
  endSession(realm: RealmRecord, sid: string): Promise<void>;
  /** Ends a browser session and the token sessions started under it. */
  endBrowserSession(realm: RealmRecord, id: string): Promise<void>;
  /** Whether the account is locked for everyone (its single sign-on is not honoured meanwhile). */
  lockedForAll(user: UserRecord): Promise<boolean>;
  /** The claims of an ID token this realm signed, expired or not (an `id_token_hint`), or undefined. */
  idTokenHint(realm: RealmRecord, token: string): Promise<JWTPayload | undefined>;
  /** The claims of a refresh token of the realm; InvalidGrant otherwise. */
  verifyRefresh(realm: RealmRecord, token: string): Promise<JWTPayload>;
  /** How long a browser session (the SSO cookie) lasts after the password was typed. */
  ssoSessionMs: number;
  /** How long an authorization code may be exchanged. */
  codeTtlMs: number;
  /** Where logouts are recorded (the audit trail); nowhere when absent. */
  events?: SecurityEvents;
}
