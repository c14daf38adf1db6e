import { revocationSubject, sessionStartedAt, type Revocation } from '../shared/auth/revocations';
import type { RealmRecord, TokenStore } from './ports';

/** Whose sessions a revocation ends: one realm's, or one of its users' or clients'. */
export interface SessionsOf {
  realmId: string;
  userId?: string;
  clientId?: string;
}

/** When every access token of a realm issued up to `at` has expired: what a revocation at `at` is kept for. */
export const revokedUntil = (realm: Pick<RealmRecord, 'accessTokenLifespan'>, at: number): number => at + realm.accessTokenLifespan * 1000;

/**
 * Ends a browser (single sign-on) session and every token session started under it, their access
 * tokens listed as revoked until they expire; how many token sessions ended.
 */
export const endBrowserSession = (store: TokenStore, realm: RealmRecord, id: string, now: number): Promise<number> =>
  store.browserSessions.end(id, now, revokedUntil(realm, now));

/** The list entry for one session ended. */
export const sessionEntry = (realmId: string, sessionId: string, until: number): Revocation => ({
  realm: realmId,
  kind: 'session',
  subject: revocationSubject('session', sessionId),
  upTo: 0,
  until,
});

/**
 * The list entry for every session of `of` ended at `at` (`ended`: their ids), or none when none
 * was open. It covers the sessions started up to the latest of `at` and the newest ended one, so a
 * session that started before the revocation but was written just after it is covered too.
 */
export function sessionsEntry(of: SessionsOf, at: number, until: number, ended: readonly string[]): Revocation | undefined {
  if (ended.length === 0) return undefined;
  const upTo = ended.reduce((t, id) => Math.max(t, sessionStartedAt(id)), at);
  if (of.userId) return { realm: of.realmId, kind: 'user', subject: revocationSubject('user', of.userId), upTo, until };
  if (of.clientId) return { realm: of.realmId, kind: 'client', subject: revocationSubject('client', of.clientId), upTo, until };
  return { realm: of.realmId, kind: 'realm', subject: revocationSubject('realm', of.realmId), upTo, until };
}
