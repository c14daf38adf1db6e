import type { VerifiedToken } from '../shared/auth/verifier';
import type { RealmRecord, TokenStore } from './ports';
import type { ActiveIntrospection, ClientIntrospection, UserInfo } from './service';

/**
 * The introspection answer for a token whose signature and claims already verified, or undefined
 * when it must read inactive: its session was revoked or expired, or its client, user or realm
 * was disabled since it was issued.
 */
export async function introspectionOf(
  store: TokenStore,
  realm: RealmRecord,
  c: VerifiedToken['claims'],
): Promise<ActiveIntrospection | undefined> {
  const session = await store.sessions.get(String(c.sid));
  if (!session || session.revokedAt !== null || session.realmId !== realm.id) return undefined;
  const [client, user] = await Promise.all([
    store.clients.get(realm.id, session.clientId),
    session.userId ? store.users.getById(session.userId) : undefined,
  ]);
  if (!client?.enabled) return undefined;
  if (session.userId && !user?.enabled) return undefined;

  const s = (v: unknown) => (typeof v === 'string' ? v : '');
  const roles = (c.realm_access as { roles?: string[] } | undefined)?.roles ?? [];
  return {
    exp: Number(c.exp),
    iat: Number(c.iat),
    jti: s(c.jti),
    iss: s(c.iss),
    sub: s(c.sub),
    typ: s(c.typ),
    azp: s(c.azp),
    session_state: s(c.session_state),
    preferred_username: s(c.preferred_username),
    // spec: email_verified and active are rendered as strings holding a boolean word.
    email_verified: c.email_verified === true ? 'true' : 'false',
    realm_access: { roles },
    scope: s(c.scope),
    sid: s(c.sid),
    ...(c.clientId ? { clientId: s(c.clientId), clientHost: s(c.clientHost), clientAddress: s(c.clientAddress) } : {}),
    client_id: s(c.azp),
    username: s(c.preferred_username),
    tenant_id: s(c.tenant_id),
    active: 'true',
  };
}

/** RFC 7662 §2.2: the spec's active answer with real booleans, the token's `aud` and its `token_type`. */
export function clientIntrospectionOf(active: ActiveIntrospection, c: VerifiedToken['claims']): ClientIntrospection {
  const aud = Array.isArray(c.aud) ? c.aud : typeof c.aud === 'string' ? [c.aud] : [];
  return { ...active, active: true, email_verified: active.email_verified === 'true', aud, token_type: 'Bearer' };
}

/** OIDC Core §5.3 claims of an active access token (its subject: a user or a service account). */
export function userinfoOf(c: VerifiedToken['claims']): UserInfo {
  const s = (v: unknown) => (typeof v === 'string' ? v : '');
  const roles = (c.realm_access as { roles?: string[] } | undefined)?.roles ?? [];
  return {
    sub: s(c.sub),
    preferred_username: s(c.preferred_username),
    ...(typeof c.email === 'string' ? { email: c.email } : {}),
    email_verified: c.email_verified === true,
    tenant_id: s(c.tenant_id),
    realm_access: { roles },
  };
}
