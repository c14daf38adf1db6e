import { actorOf } from '../shared/admin/access';
import { audited, changeBy, type AuditTrail } from '../shared/admin/audit';
import { pageOf } from '../shared/admin/paging';
import { MissingCredentials, type Caller } from '../shared/auth/caller';
import type { Clock } from '../shared/clock';
import type { Ctx } from '../shared/context';
import { Forbidden, NotFound } from '../shared/errors';
import type { TokenAdmin } from './admin';
import { sessionView } from './admin-api/views';
import type { TokenStore, UserRecord } from './ports';
import type { AccountMethod, TokenService } from './service';

export interface AccountDeps {
  /** The administration's session rules (listing, ending one, ending all of a user's), reused as they are. */
  admin: Pick<TokenAdmin, 'listSessions' | 'endBrowserSession' | 'logout'>;
  store: TokenStore;
  clock: Clock;
  /** Where each end is recorded, as the admin API records its own (`session.end`, `user.logout`). */
  audit: AuditTrail;
}

/**
 * A person's own single sign-on sessions (Keycloak's account API: `GET`/`DELETE
 * /realms/{realm}/account/sessions`): listed, ended one by one, or all at once ("sign out
 * everywhere"). Rules:
 * - the caller is the person behind a bearer token of their realm; a client's own token (client
 *   credentials) has no person and is refused (403);
 * - only the caller's own open sessions exist here: another person's session, an ended or expired
 *   one and an unknown id are all the same 404, so nothing tells them apart;
 * - `current` marks the session the caller's token came from (its `sid` names a token session
 *   started under that browser session);
 * - an end takes effect as an administrator's does (the revoked-sessions list) and is recorded in
 *   the audit trail with the person as its actor (`details.via`: `account`).
 */
export function createAccount(deps: AccountDeps): Pick<TokenService, AccountMethod> {
  const { admin, store, clock } = deps;

  /** The person behind the caller's token, or 401 (no caller) / 403 (a client's own token). */
  async function personOf(ctx: Ctx<Caller> | undefined): Promise<{ caller: Caller; user: UserRecord }> {
    const caller = ctx?.caller;
    if (!caller) throw new MissingCredentials();
    // A client's token names the client as its subject: no user has that id in the realm.
    const user = await store.users.getById(caller.subject);
    if (!user || user.realmId !== caller.realm)
      throw new Forbidden("a client's own token (client credentials) has no sessions of a person: sign in as a person");
    return { caller, user };
  }

  /** Runs an end and records it: the person as the actor (or the client refused), success with its count or failure with why. */
  const recorded = <T extends { sessions_ended: number }>(
    ctx: Ctx<Caller>,
    type: 'session.end' | 'user.logout',
    target: (caller: Caller) => { kind: string; id: string },
    run: (event: { tenant?: string }) => Promise<T>,
  ): Promise<T> => {
    if (!ctx?.caller) return Promise.reject(new MissingCredentials());
    const event = changeBy({ actor: actorOf(ctx.caller) }, ctx, 'token', type, { realm: ctx.caller.realm, target: target(ctx.caller) });
    event.details = { via: 'account' };
    return audited(
      deps.audit,
      event,
      () => run(event),
      (r) => ({ sessions_ended: r.sessions_ended }),
    );
  };

  return {
    async accountSessions(req, ctx) {
      const { caller, user } = await personOf(ctx);
      const [open, own] = await Promise.all([admin.listSessions(user.realmId, user.username), store.sessions.get(caller.sessionId)]);
      const current = own?.userId === user.id ? own.browserSessionId : null;
      const page = pageOf(
        open.map((s) => ({ ...sessionView(s), current: s.id === current })),
        { limit: req.limit, cursor: req.cursor, sort: '-created_at' },
        { keyOf: (s) => s.id, sorts: { created_at: (s) => s.created_at } },
      );
      return { items: page.items, next_cursor: page.nextCursor, total: page.total };
    },

    endAccountSession(req, ctx) {
      return recorded(
        ctx,
        'session.end',
        () => ({ kind: 'session', id: req.id.slice(0, 256) }),
        async (event) => {
          const { user } = await personOf(ctx);
          event.tenant = user.tenantId;
          const found = await store.browserSessions.get(req.id);
          if (
            !found ||
            found.userId !== user.id ||
            found.realmId !== user.realmId ||
            found.revokedAt !== null ||
            found.expiresAt <= clock.now()
          )
            throw new NotFound(`no open session '${req.id.slice(0, 64)}' of yours`);
          return admin.endBrowserSession(user.realmId, found.id);
        },
      );
    },

    endAccountSessions(_req, ctx) {
      return recorded(
        ctx,
        'user.logout',
        (caller) => ({ kind: 'user', id: caller.username.slice(0, 256) }),
        async (event) => {
          const { user } = await personOf(ctx);
          event.tenant = user.tenantId;
          return admin.logout(user.realmId, user.username);
        },
      );
    },
  };
}
