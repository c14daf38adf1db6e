import type { Clock } from '../shared/clock';
import { BadRequest } from '../shared/errors';
import type { RealmRecord, TokenStore } from './ports';
import { endBrowserSession } from './revocations';

/** A single sign-on (browser) session as the `platform session` commands show it. */
export interface BrowserSessionView {
  id: string;
  realm: string;
  username: string;
  /** When the person typed their password. */
  authTime: string;
  createdAt: string;
  expiresAt: string;
}

export interface SessionAdminDeps {
  store: TokenStore;
  clock: Clock;
  /** The realm an administrator named (the default one when none). */
  realmOf(id: string | undefined): Promise<RealmRecord>;
  /** After sessions were ended: resolves once this process's revoked-sessions list holds them. */
  revoked?(): Promise<void>;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** The administration of single sign-on sessions (`platform session list|end`). */
export function createSessionAdmin(deps: SessionAdminDeps) {
  const { store, clock } = deps;
  return {
    /** The open single sign-on sessions of a realm, or of one user: who, when they typed their password, until when. */
    async listSessions(realm: string | undefined, username?: string): Promise<BrowserSessionView[]> {
      const r = await deps.realmOf(realm);
      const user = username === undefined ? undefined : await store.users.get(r.id, username);
      if (username !== undefined && !user) throw new BadRequest(`no user '${username}' in realm ${r.id}`);
      const open = await store.browserSessions.listOpen(r.id, clock.now(), user?.id);
      const ids = [...new Set(open.map((b) => b.userId))];
      const names = new Map(await Promise.all(ids.map(async (id) => [id, (await store.users.getById(id))?.username ?? ''] as const)));
      return open.map((b) => ({
        id: b.id,
        realm: r.id,
        username: names.get(b.userId) ?? '',
        authTime: iso(b.authTime),
        createdAt: iso(b.createdAt),
        expiresAt: iso(b.expiresAt),
      }));
    },

    /** Ends a single sign-on session: the browser signs in again with a password, and every application's tokens of it stop working. */
    async endBrowserSession(realm: string | undefined, id: string): Promise<{ realm: string; id: string; sessions_ended: number }> {
      const r = await deps.realmOf(realm);
      const found = await store.browserSessions.get(id);
      if (!found || found.realmId !== r.id || found.revokedAt !== null)
        throw new BadRequest(`no open session '${id.slice(0, 64)}' in realm ${r.id}`);
      const ended = await endBrowserSession(store, r, id, clock.now());
      await deps.revoked?.().catch(() => undefined);
      return { realm: r.id, id, sessions_ended: ended };
    },
  };
}
