import { checkTouch } from '../../shared/admin/access';
import { NotFound } from '../../shared/errors';
import type { TokenAdminApiDeps, AdminCtx, AdminTools, ListAsk } from './context';
import { sessionView, type PageView, type SessionView } from './views';

export interface SessionList extends ListAsk {
  realm: string;
  /** Only this user's sessions. */
  username?: string;
}
export interface SessionRef {
  realm: string;
  id: string;
}

/** Open single sign-on (browser) sessions of a realm: listed, and ended one by one. */
export function sessionsApi(deps: TokenAdminApiDeps, t: AdminTools) {
  const { admin, store } = deps;
  return {
    async listSessions(q: SessionList, ctx: AdminCtx): Promise<PageView<SessionView>> {
      const realm = await t.realmFor(ctx, q.realm);
      if (q.username !== undefined && !(await store.users.get(realm.id, q.username)))
        throw new NotFound(`no user '${q.username.slice(0, 128)}' in realm ${realm.id}`);
      const open = (await admin.listSessions(realm.id, q.username)).map(sessionView);
      return t.page(
        open,
        { ...q, sort: q.sort ?? '-created_at' },
        {
          keyOf: (s) => s.id,
          sorts: { created_at: (s) => s.created_at, username: (s) => s.username.toLowerCase(), expires_at: (s) => s.expires_at },
        },
        (s) => s,
      );
    },

    /** Ends one: the browser signs in again with a password, and every application's tokens of it stop working. */
    endSession(input: SessionRef, ctx: AdminCtx): Promise<{ realm: string; id: string; sessions_ended: number }> {
      return t.change(
        ctx,
        'session.end',
        { kind: 'session', id: input.id },
        async (event) => {
          const realm = await t.realmFor(ctx, input.realm);
          event.realm = realm.id;
          const session = await store.browserSessions.get(input.id);
          if (!session || session.realmId !== realm.id || session.revokedAt !== null)
            throw new NotFound(`no open session '${input.id.slice(0, 64)}' in realm ${realm.id}`);
          const user = await store.users.getById(session.userId);
          if (user) {
            event.tenant = user.tenantId;
            checkTouch(ctx.caller, user, `the session of user '${user.username}'`);
          }
          return admin.endBrowserSession(realm.id, input.id);
        },
        (r) => ({ sessions_ended: r.sessions_ended }),
      );
    },
  };
}
