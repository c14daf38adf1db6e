import { adminTools, type TokenAdminApiDeps } from './context';
import { clientsApi } from './clients';
import { realmsApi } from './realms';
import { sessionsApi } from './sessions';
import { usersApi } from './users';

export type { AdminCtx, TokenAdminApiDeps } from './context';
export type * from './views';
export type { RealmCreate, RealmList, RealmRef, RealmUpdate } from './realms';
export type { ClientCreate, ClientList, ClientRef, ClientUpdate, ClientWithSecret } from './clients';
export type { UserCreate, UserList, UserRef, UserUpdate } from './users';
export type { SessionList, SessionRef } from './sessions';

/**
 * The token service's admin API (docs/admin.md): realms, clients, users and sessions, as every
 * admin face (REST, GraphQL, the CLI) calls it. Each method takes its input and the
 * administrator's context, checks what the administrator may do (a realm administrator: its own
 * realm, 404 for another; its own tenants; never `platform-admin`), records every change in the
 * audit trail (reads are not recorded), and answers the admin views (views.ts).
 */
export function createTokenAdminApi(deps: TokenAdminApiDeps) {
  const t = adminTools(deps);
  return { ...realmsApi(deps, t), ...clientsApi(deps, t), ...usersApi(deps, t), ...sessionsApi(deps, t) };
}

export type TokenAdminApi = ReturnType<typeof createTokenAdminApi>;
