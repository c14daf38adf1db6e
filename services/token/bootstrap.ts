import { randomBytes } from 'node:crypto';
import { Conflict } from '../../core/shared/errors';
import type { TokenCore } from '../../core/token';
import { randomSecret } from '../../core/token/secrets';

export const DEMO_ROLES = ['search:read', 'search:write'];
const FIELDS = ['realm', 'tenant_id', 'client_id', 'client_secret', 'username', 'password'] as const;

/** `create(name)`, or, when that name is taken (now or by another replica meanwhile), under the name with a random suffix. */
async function createFree<T>(name: string, taken: (n: string) => Promise<unknown>, create: (n: string) => Promise<T>): Promise<T> {
  const suffixed = () => `${name}-${randomBytes(3).toString('hex')}`;
  for (let tries = 0; ; tries++) {
    const n = tries === 0 && !(await taken(name)) ? name : suffixed();
    try {
      return await create(n);
    } catch (err) {
      if (!(err instanceof Conflict) || tries >= 3) throw err;
    }
  }
}

/**
 * DECISIONS: the first start creates the default realm, a confidential demo client and a demo
 * user, and their credentials go to `bootstrap.json`. Later starts keep what the file holds.
 * Replicas sharing one database (each with its own data directory) find the default realm the
 * first one made, even when they start at the same moment (the realm is created in one step; the
 * one that loses reads the winner's), and each gets demo accounts of its own.
 */
export async function tokenBootstrap(token: TokenCore, current: Readonly<Record<string, string>>): Promise<Record<string, string>> {
  const { store, admin } = token;
  const defaultRealm = await store.realms.getDefaultId();
  if (defaultRealm && FIELDS.every((f) => current[f])) return Object.fromEntries(FIELDS.map((f) => [f, current[f]!]));

  const realm = defaultRealm ?? (await admin.createRealm({ name: 'default' }).then((r) => r.id, async (err: unknown) => {
    const winner = err instanceof Conflict ? await store.realms.getDefaultId() : undefined;
    if (!winner) throw err;
    return winner;
  }));
  const tenant = realm;
  // A data dir that lost its bootstrap.json (or another replica's) keeps the old demo accounts; new ones get a suffix.
  const client = await createFree('demo-client', (n) => store.clients.get(realm, n),
    (clientId) => admin.createClient({ realm, clientId, tenantId: tenant, roles: DEMO_ROLES }));
  const password = randomSecret(18);
  const user = await createFree('demo-user', (n) => store.users.get(realm, n),
    (username) => admin.createUser({ realm, username, password, tenantId: tenant, roles: DEMO_ROLES }));
  return { realm, tenant_id: tenant, client_id: client.clientId, client_secret: client.client_secret, username: user.username, password };
}
