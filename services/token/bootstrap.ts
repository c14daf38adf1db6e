import { randomBytes } from 'node:crypto';
import type { TokenCore } from '../../core/token';
import { randomSecret } from '../../core/token/secrets';

export const DEMO_ROLES = ['search:read', 'search:write'];
const FIELDS = ['realm', 'tenant_id', 'client_id', 'client_secret', 'username', 'password'] as const;

/**
 * DECISIONS: the first start creates the default realm, a confidential demo client and a demo
 * user, and their credentials go to `bootstrap.json`. Later starts keep what the file holds.
 */
export async function tokenBootstrap(token: TokenCore, current: Readonly<Record<string, string>>): Promise<Record<string, string>> {
  const defaultRealm = token.store.realms.getDefaultId();
  if (defaultRealm && FIELDS.every((f) => current[f])) return Object.fromEntries(FIELDS.map((f) => [f, current[f]!]));

  const realm = defaultRealm ?? (await token.admin.createRealm({ name: 'default' })).id;
  const tenant = realm;
  // A data dir that lost its bootstrap.json keeps its old demo accounts; new ones get a suffix.
  const free = (name: string, taken: (n: string) => unknown) => (taken(name) ? `${name}-${randomBytes(3).toString('hex')}` : name);
  const clientId = free('demo-client', (n) => token.store.clients.get(realm, n));
  const client = await token.admin.createClient({ realm, clientId, tenantId: tenant, roles: DEMO_ROLES });
  const password = randomSecret(18);
  const username = free('demo-user', (n) => token.store.users.get(realm, n));
  const user = await token.admin.createUser({ realm, username, password, tenantId: tenant, roles: DEMO_ROLES });
  return { realm, tenant_id: tenant, client_id: client.clientId, client_secret: client.client_secret, username: user.username, password };
}
