import { checkAssignedTenant, checkGrant, checkTouch } from '../../shared/admin/access';
import { keysetOf, keysetPage } from '../../shared/admin/paging';
import { BadRequest, NotFound } from '../../shared/errors';
import type { RealmRecord, UserRecord } from '../ports';
import type { TokenAdminApiDeps, AdminCtx, AdminTools, ListAsk } from './context';
import { checkRoles } from './context';
import { changedOf } from './realms';
import { userView, type PageView, type UserView } from './views';

export interface UserList extends ListAsk {
  realm: string;
  /** A substring of the username, in any case. */
  q?: string;
  enabled?: boolean;
  /** Users holding this role. */
  role?: string;
}
export interface UserRef {
  realm: string;
  username: string;
}
export interface UserCreate {
  realm: string;
  username: string;
  password: string;
  tenant_id?: string;
  roles?: string[];
  email?: string;
}
export interface UserUpdate extends UserRef {
  /** The version it was read at (If-Match): 412 when it changed since; any when absent. */
  version?: number;
  enabled?: boolean;
  roles?: string[];
  /** null: no address. */
  email?: string | null;
  tenant_id?: string;
}

/** The sorts of the list of users (the first is the default), and the type of their values. */
const USER_SORTS = { username: 'string', created_at: 'number' } as const;

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}$/;
function checkEmail(email: string | null | undefined) {
  if (email && !EMAIL.test(email)) throw new BadRequest('email: an address like name@example.com');
}

/**
 * Users of a realm. A realm administrator gives only its own tenants and never `platform-admin`,
 * and touches no user holding `platform-admin`: not their password, roles, lock or sessions.
 */
export function usersApi(deps: TokenAdminApiDeps, t: AdminTools) {
  const { admin, store } = deps;
  const found = async (realm: RealmRecord, username: string): Promise<UserRecord> => {
    const u = await store.users.get(realm.id, username);
    if (!u) throw new NotFound(`no user '${username.slice(0, 128)}' in realm ${realm.id}`);
    return u;
  };
  const guard = (ctx: AdminCtx, u: UserRecord) => checkTouch(ctx.caller, u, `user '${u.username}'`);
  const view = async (u: UserRecord) => userView(await admin.userView(u));

  /** A change of one user: its realm and the user found (404 otherwise), its event filled in, `guard` applied. */
  const onUser = async <T>(
    ctx: AdminCtx,
    input: UserRef,
    event: { realm?: string; tenant?: string },
    run: (realm: RealmRecord, u: UserRecord) => Promise<T>,
  ) => {
    const realm = await t.realmFor(ctx, input.realm);
    event.realm = realm.id;
    const u = await found(realm, input.username);
    event.tenant = u.tenantId;
    guard(ctx, u);
    return run(realm, u);
  };

  return {
    async listUsers(q: UserList, ctx: AdminCtx): Promise<PageView<UserView>> {
      const realm = await t.realmFor(ctx, q.realm);
      const keyset = keysetOf(q, USER_SORTS);
      const found = await store.users.page(realm.id, { ...keyset, q: q.q, enabled: q.enabled, role: q.role });
      // Positions as the store compares them: usernames in lower case.
      const page = keysetPage(found, keyset, (u) => [keyset.sort === 'username' ? u.username.toLowerCase() : u.createdAt, u.id]);
      return { items: await Promise.all(page.items.map(view)), next_cursor: page.nextCursor, total: page.total };
    },

    async getUser(q: UserRef, ctx: AdminCtx): Promise<UserView> {
      return view(await found(await t.realmFor(ctx, q.realm), q.username));
    },

    createUser(input: UserCreate, ctx: AdminCtx): Promise<UserView> {
      return t.change(
        ctx,
        'user.create',
        { kind: 'user', id: input.username },
        async (event) => {
          const realm = await t.realmFor(ctx, input.realm);
          event.realm = realm.id;
          event.tenant = input.tenant_id ?? realm.id;
          checkGrant(ctx.caller, input.roles);
          checkAssignedTenant(ctx.caller, input.tenant_id);
          checkEmail(input.email);
          const { realm: _realm, ...made } = await admin.createUser({
            realm: realm.id,
            username: input.username,
            password: input.password,
            tenantId: input.tenant_id,
            roles: checkRoles(input.roles),
            email: input.email,
          });
          return userView(made);
        },
        (u) => ({ id: u.id, tenant_id: u.tenant_id, roles: u.roles }),
      );
    },

    updateUser(input: UserUpdate, ctx: AdminCtx): Promise<UserView> {
      return t.change(
        ctx,
        'user.update',
        { kind: 'user', id: input.username },
        async (event) => {
          const realm = await t.realmFor(ctx, input.realm);
          event.realm = realm.id;
          checkGrant(ctx.caller, input.roles);
          checkAssignedTenant(ctx.caller, input.tenant_id);
          checkEmail(input.email);
          const updated = await admin.updateUser(
            realm.id,
            input.username,
            { enabled: input.enabled, roles: checkRoles(input.roles), email: input.email, tenantId: input.tenant_id },
            {
              ifVersion: input.version,
              guard: (u) => {
                event.tenant = u.tenantId;
                guard(ctx, u);
              },
            },
          );
          return userView(updated);
        },
        (u) => ({ changed: changedOf(input), version: u.version }),
      );
    },

    /** A new password: every lock on the account lifts, and the user's sessions end. */
    setUserPassword(input: UserRef & { password: string }, ctx: AdminCtx): Promise<UserView & { sessions_ended: number }> {
      return t.change(
        ctx,
        'user.password',
        { kind: 'user', id: input.username },
        (event) =>
          onUser(ctx, input, event, async (realm, u) => {
            const { sessions_ended, ...changed } = await admin.setPassword(realm.id, u.username, input.password, (now) => guard(ctx, now));
            return { ...userView(changed), sessions_ended };
          }),
        (u) => ({ sessions_ended: u.sessions_ended }),
      );
    },

    /** Lifts every lock on the account (too many wrong passwords, from one address or from all). */
    unlockUser(input: UserRef, ctx: AdminCtx): Promise<UserView> {
      return t.change(ctx, 'user.unlock', { kind: 'user', id: input.username }, (event) =>
        onUser(ctx, input, event, async (realm, u) => userView(await admin.unlockUser(realm.id, u.username, (now) => guard(ctx, now)))),
      );
    },

    /** Ends every session of the user: their access and refresh tokens stop working at once. */
    logoutUser(input: UserRef, ctx: AdminCtx): Promise<{ realm: string; username: string; sessions_ended: number }> {
      return t.change(
        ctx,
        'user.logout',
        { kind: 'user', id: input.username },
        (event) => onUser(ctx, input, event, (realm, u) => admin.logout(realm.id, u.username)),
        (r) => ({ sessions_ended: r.sessions_ended }),
      );
    },
  };
}
