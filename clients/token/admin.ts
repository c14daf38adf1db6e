import type { TokenAdminApi } from '../../core/token/admin-api';
import { seg, type AdminConnection } from '../admin/connection';

/**
 * The token service's admin API (core/token/admin-api) over its REST paths (`/admin/api/v1/realms...`),
 * for the `platform` command against a remote platform: the same inputs, the same views, the same
 * errors. The administrator is the connection's token, so `ctx` does not cross the hop.
 */
export function tokenAdminClient(c: AdminConnection): TokenAdminApi {
  const realm = (r: string) => `/realms/${seg(r)}`;
  const client = (r: string, id: string) => `${realm(r)}/clients/${seg(id)}`;
  const user = (r: string, name: string) => `${realm(r)}/users/${seg(name)}`;
  return {
    listRealms: ({ name, enabled, ...ask }) => c.page('/realms', ask, { name, enabled }),
    getRealm: (q) => c.request('GET', realm(q.realm)),
    createRealm: (input) => c.request('POST', '/realms', { json: input }),
    updateRealm: ({ realm: r, version, ...body }) => c.request('PATCH', realm(r), { json: body, version }),
    setDefaultRealm: (q) => c.request('POST', `${realm(q.realm)}/default`),
    rotateRealmKey: (q) => c.request('POST', `${realm(q.realm)}/keys`),

    listClients: ({ realm: r, q, enabled, public: pub, ...ask }) => c.page(`${realm(r)}/clients`, ask, { q, enabled, public: pub }),
    getClient: (q) => c.request('GET', client(q.realm, q.client_id)),
    createClient: ({ realm: r, ...body }) => c.request('POST', `${realm(r)}/clients`, { json: body }),
    updateClient: ({ realm: r, client_id, version, ...body }) => c.request('PATCH', client(r, client_id), { json: body, version }),
    regenerateClientSecret: (q) => c.request('POST', `${client(q.realm, q.client_id)}/secret`),

    listUsers: ({ realm: r, q, enabled, role, ...ask }) => c.page(`${realm(r)}/users`, ask, { q, enabled, role }),
    getUser: (q) => c.request('GET', user(q.realm, q.username)),
    createUser: ({ realm: r, ...body }) => c.request('POST', `${realm(r)}/users`, { json: body }),
    updateUser: ({ realm: r, username, version, ...body }) => c.request('PATCH', user(r, username), { json: body, version }),
    setUserPassword: ({ realm: r, username, password }) => c.request('PUT', `${user(r, username)}/password`, { json: { password } }),
    unlockUser: (q) => c.request('POST', `${user(q.realm, q.username)}/unlock`),
    logoutUser: (q) => c.request('POST', `${user(q.realm, q.username)}/logout`),

    listSessions: ({ realm: r, username, ...ask }) => c.page(`${realm(r)}/sessions`, ask, { username }),
    endSession: (q) => c.request('DELETE', `${realm(q.realm)}/sessions/${seg(q.id)}`),
  };
}
