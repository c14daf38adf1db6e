import type { Clock } from '../../shared/clock';
import type { Ctx } from '../../shared/context';
import type { Attempt } from '../attempt';
import type { Authenticator } from '../authenticate';
import type { Issuer } from '../issuer';
import type { ClientRecord, RealmRecord, TokenStore } from '../ports';
import type { TokenResponse } from '../service';

/**
 * A grant type (RFC 6749 §4, §6): one module each in this folder, registered in index.ts. The
 * door that received the request (the token, login or refresh endpoint) resolved the realm and
 * chose how the client authenticates; the grant authenticates what else it needs (a user, a
 * refresh token), under the failure counts, and issues the tokens.
 */
export interface Grant {
  /**
   * The grant's own rules on its parameters beyond the schema's (an `InvalidRequest`), checked by
   * the door at its point in the order of checks.
   */
  check(req: GrantRequest): void;
  issue(call: GrantCall, deps: GrantDeps): Promise<TokenResponse>;
}

/** What a request asks of a grant: scopes and (RFC 8707) the services its access token is for. */
export interface Ask {
  scopes?: string;
  resource?: string[];
  audience?: string[];
}

/** The parameters a grant may read, in the spec's wire names (each door's input carries its own). */
export interface GrantRequest extends Ask {
  refresh_token?: string;
  username?: string;
  password?: string;
  code?: string;
  redirect_uri?: string;
  code_verifier?: string;
}

/**
 * The client of a grant: one the door authenticated before the grant (the token endpoint), or how
 * to authenticate it within the grant's own authenticating step (the login and refresh endpoints,
 * where a client is optional; a refresh names the client its token was issued to when the request
 * names none).
 */
export type GrantClient =
  { authenticated: ClientRecord } | { authenticate(attempt: Attempt, sessionClientId?: string): Promise<ClientRecord> };

export interface GrantCall {
  req: GrantRequest;
  realm: RealmRecord;
  client: GrantClient;
  ctx: Ctx;
}

/** What every grant shares: the store, the authenticator (failure counts, lockout, hashing), the issuer, the clock. */
export interface GrantDeps {
  store: TokenStore;
  auth: Authenticator;
  issuer: Issuer;
  clock: Clock;
  /** RFC 9068 `aud` of every access token: the platform's services. */
  audience: readonly string[];
  /** Ends a session, its access tokens refused before this returns (the revoked-sessions list). */
  endSession(realm: RealmRecord, sid: string): Promise<void>;
}

/** The client within a grant's authenticating step: the one already authenticated, or authenticated now. */
export const clientIn = (client: GrantClient, attempt: Attempt, sessionClientId?: string): Promise<ClientRecord> =>
  'authenticated' in client ? Promise.resolve(client.authenticated) : client.authenticate(attempt, sessionClientId);

/**
 * Runs `step` with a way to the grant's client: at once when the door authenticated it, else
 * within an authenticating step of its own (under the failure counts) that authenticates it when
 * `step` asks.
 */
export function withClient<T>(
  { client, ctx }: GrantCall,
  deps: GrantDeps,
  step: (clientOf: (sessionClientId?: string) => Promise<ClientRecord>) => Promise<T>,
): Promise<T> {
  if ('authenticated' in client) return step(async () => client.authenticated);
  return deps.auth.throttled(ctx, (attempt) => step((sessionClientId) => client.authenticate(attempt, sessionClientId)));
}
