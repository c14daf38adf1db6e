import type { z } from 'zod';
import type { Admin } from '../../core/shared/admin/access';
import type { Ctx } from '../../core/shared/context';
import type { PageView, TokenAdminApi } from '../../core/token/admin-api';
import type { CallOf } from '../../edge/graphql/calls';
import type { GraphContext } from '../../edge/graphql/context';
import * as A from './admin-args';
import { wireArgs } from './admin-args';

/**
 * The token subgraph's admin fields (docs/admin.md): realms, clients, users and single sign-on
 * sessions, through the same admin API as the REST routes and the CLI (core/token/admin-api), so
 * the answers are the REST views with their fields camelCased, and the same rules hold: the core
 * decides what each administrator may see and change (another realm NOT_FOUND, `platform-admin`
 * granted or touched by a realm administrator FORBIDDEN) and records every change. The caller is
 * established from the bearer token first: a plain user or client gets FORBIDDEN whatever it asked.
 */
type Args = Record<string, unknown>;
type WithInput = Args & { input: Args };

const camel = (k: string) => k.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
/** A view as GraphQL shows it: the REST view's fields camelCased (one level: their values are scalars and lists of strings). */
const shown = (view: object): Record<string, unknown> => Object.fromEntries(Object.entries(view).map(([k, v]) => [camel(k), v]));
const page = (p: PageView<object>) => ({ items: p.items.map(shown), nextCursor: p.next_cursor, total: p.total });

export function tokenAdminResolvers(api: TokenAdminApi, adminOf: CallOf<Admin>) {
  /** A field's resolver: the administrator first, then its arguments, then the core. */
  const field =
    <T extends Args>(run: (args: T, ctx: Ctx<Admin>) => Promise<unknown>) =>
    async (_: unknown, args: T, graph: GraphContext) =>
      run(args, await adminOf(graph));
  /** An update's target and expected version, and its input's fields. */
  const update = <S extends z.ZodObject, T extends z.ZodObject>(
    ref: S,
    body: T,
    { input, ...rest }: WithInput,
  ): z.output<S> & z.output<T> => ({
    ...wireArgs(ref, rest),
    ...wireArgs(body, input, ['input']),
  });

  return {
    Query: {
      adminRealms: field(async (a, ctx) => page(await api.listRealms(wireArgs(A.RealmList, a), ctx))),
      adminRealm: field(async (a, ctx) => shown(await api.getRealm(wireArgs(A.RealmRef, a), ctx))),
      adminClients: field(async (a, ctx) => page(await api.listClients(wireArgs(A.ClientList, a), ctx))),
      adminClient: field(async (a, ctx) => shown(await api.getClient(wireArgs(A.ClientRef, a), ctx))),
      adminUsers: field(async (a, ctx) => page(await api.listUsers(wireArgs(A.UserList, a), ctx))),
      adminUser: field(async (a, ctx) => shown(await api.getUser(wireArgs(A.UserRef, a), ctx))),
      adminSessions: field(async (a, ctx) => page(await api.listSessions(wireArgs(A.SessionList, a), ctx))),
    },
    Mutation: {
      adminCreateRealm: field(async ({ input }: WithInput, ctx) =>
        shown(await api.createRealm(wireArgs(A.RealmCreate, input, ['input']), ctx)),
      ),
      adminUpdateRealm: field(async (a: WithInput, ctx) =>
        shown(await api.updateRealm(update(A.RealmRef.extend(A.Version.shape), A.RealmUpdate, a), ctx)),
      ),
      adminSetDefaultRealm: field(async (a, ctx) => shown(await api.setDefaultRealm(wireArgs(A.RealmRef, a), ctx))),
      adminRotateRealmKey: field(async (a, ctx) => api.rotateRealmKey(wireArgs(A.RealmRef, a), ctx)),
      adminCreateClient: field(async (a: WithInput, ctx) => shown(await api.createClient(update(A.RealmRef, A.ClientCreate, a), ctx))),
      adminUpdateClient: field(async (a: WithInput, ctx) =>
        shown(await api.updateClient(update(A.ClientRef.extend(A.Version.shape), A.ClientUpdate, a), ctx)),
      ),
      adminRegenerateClientSecret: field(async (a, ctx) => shown(await api.regenerateClientSecret(wireArgs(A.ClientRef, a), ctx))),
      adminCreateUser: field(async (a: WithInput, ctx) => shown(await api.createUser(update(A.RealmRef, A.UserCreate, a), ctx))),
      adminUpdateUser: field(async (a: WithInput, ctx) => {
        const changes = update(A.UserRef.extend(A.Version.shape), A.UserUpdate, a);
        // An explicit null clears the address (GraphQL's null is otherwise "not given").
        return shown(await api.updateUser(a.input.email === null ? { ...changes, email: null } : changes, ctx));
      }),
      adminSetUserPassword: field(async (a, ctx) => shown(await api.setUserPassword(wireArgs(A.UserRef.extend(A.Password.shape), a), ctx))),
      adminUnlockUser: field(async (a, ctx) => shown(await api.unlockUser(wireArgs(A.UserRef, a), ctx))),
      adminLogoutUser: field(async (a, ctx) => shown(await api.logoutUser(wireArgs(A.UserRef, a), ctx))),
      adminEndSession: field(async (a, ctx) => shown(await api.endSession(wireArgs(A.SessionRef, a), ctx))),
    },
  };
}
