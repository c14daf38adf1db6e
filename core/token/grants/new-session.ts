import { randomUUID } from 'node:crypto';
import { uuidv7 } from '../../shared/ids';
import type { Ctx } from '../../shared/context';
import { grantAudience, parseTargets } from '../audience';
import type { ClientRecord, RealmRecord, UserRecord } from '../ports';
import { grantScopes } from '../scopes';
import type { TokenResponse } from '../service';
import type { Ask, GrantDeps } from './grant';
import type { OidcSignIn } from '../issuer';

/** A new session, written while its tokens are signed; answered only once both are done. */
export async function newSession(
  deps: GrantDeps,
  realm: RealmRecord,
  client: ClientRecord,
  user: UserRecord | undefined,
  ask: Ask,
  ctx: Ctx,
  signIn?: { browserSessionId: string; oidc: OidcSignIn; started?: (sessionId: string) => Promise<void> },
): Promise<TokenResponse> {
  const scope = grantScopes(client.scopes, ask.scopes);
  const targets = parseTargets(ask.resource, ask.audience);
  const audience = grantAudience(deps.audience, targets);
  const now = deps.clock.now();
  const session = {
    id: uuidv7(now),
    realmId: realm.id,
    clientId: client.clientId,
    userId: user?.id ?? null,
    scope: scope.join(' '),
    refreshJti: randomUUID(),
    browserSessionId: signIn?.browserSessionId ?? null,
    createdAt: now,
    expiresAt: now + realm.refreshTokenLifespan * 1000,
    revokedAt: null,
  };
  const narrowed = targets.length ? { audience, granted: audience } : {};
  const [tokens] = await Promise.all([
    deps.issuer.issue({ realm, client, user, session, scope: scope.join(' '), ...narrowed, oidc: signIn?.oidc }, ctx),
    deps.store.sessions.write(session),
  ]);
  await signIn?.started?.(session.id);
  return tokens;
}
