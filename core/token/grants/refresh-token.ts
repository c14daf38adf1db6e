import { randomUUID } from 'node:crypto';
import type { Ctx } from '../../shared/context';
import { grantAudience, parseTargets } from '../audience';
import { InvalidGrant, InvalidRequest } from '../errors';
import type { ClientRecord, RealmRecord } from '../ports';
import { grantScopes, parseScopes } from '../scopes';
import type { TokenResponse } from '../service';
import { withClient, type Ask, type Grant, type GrantDeps } from './grant';

/** Rotation: each refresh token works once; presenting a used one ends the whole session. */
async function rotate(
  deps: GrantDeps,
  realm: RealmRecord,
  token: string,
  ask: Ask,
  ctx: Ctx,
  client: (sessionClientId: string) => Promise<ClientRecord>,
): Promise<TokenResponse> {
  const { store, issuer } = deps;
  const claims = await issuer.verifyRefresh(realm, token);
  // RFC 8707 §2.2: a refresh may narrow the audience the grant was given, never widen it.
  const granted = Array.isArray(claims.resource) ? claims.resource.filter((a): a is string => typeof a === 'string') : undefined;
  const audience = grantAudience(granted ?? deps.audience, parseTargets(ask.resource, ask.audience));
  const session = await store.sessions.get(String(claims.sid));
  if (!session || session.revokedAt !== null || session.realmId !== realm.id) throw new InvalidGrant();
  if (session.refreshJti !== claims.jti) {
    await deps.endSession(realm, session.id);
    throw new InvalidGrant('Refresh token was already used; the session has been ended');
  }
  const c = await client(session.clientId);
  if (c.clientId !== session.clientId) throw new InvalidGrant('Refresh token was issued to another client');
  const user = session.userId ? await store.users.getById(session.userId) : undefined;
  if (!c.enabled || (session.userId && !user?.enabled)) throw new InvalidGrant();

  const scope = grantScopes(parseScopes(session.scope), ask.scopes);
  const next = { ...session, refreshJti: randomUUID(), expiresAt: deps.clock.now() + realm.refreshTokenLifespan * 1000 };
  if (!(await store.sessions.rotate(session.id, session.refreshJti, next.refreshJti, next.expiresAt))) throw new InvalidGrant();
  // A session a person started on the login page keeps its nonce and auth_time, and an ID token comes with each refresh.
  const oidc =
    typeof claims.auth_time === 'number'
      ? { nonce: typeof claims.nonce === 'string' ? claims.nonce : null, authTime: claims.auth_time * 1000 }
      : undefined;
  return issuer.issue({ realm, client: c, user, session: next, scope: scope.join(' '), audience, granted, oidc }, ctx);
}

/**
 * RFC 6749 §6 with rotation. The token is verified before the client is authenticated, so a client
 * the door left to the grant may be the one the token names (the login and refresh endpoints).
 */
export const refreshToken: Grant = {
  check(req) {
    if (!req.refresh_token) throw new InvalidRequest('refresh_token is required for grant_type refresh_token');
  },
  issue: (call, deps) =>
    withClient(call, deps, (clientOf) => rotate(deps, call.realm, call.req.refresh_token ?? '', call.req, call.ctx, clientOf)),
};
