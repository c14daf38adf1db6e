import { randomBytes } from 'node:crypto';
import { Conflict } from '../../core/shared/errors';
import type { TokenCore } from '../../core/token';
import { randomSecret } from '../../core/token/secrets';
import type { BootstrapContext } from '../shared/module';
import { PLATFORM_ADMIN_ROLE } from '../../core/token/roles';

export const DEMO_ROLES = ['search:read', 'search:write'];
const DEMO_CLIENT = 'demo-client';
const DEMO_USER = 'demo-user';
const ADMIN_USER = 'admin';
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
 * Replicas sharing one database bootstrap one at a time (bin/bootstrap.ts): the first makes the
 * realm and the demo accounts; the others find them and take their ids (not their secrets, which
 * only the first one's file holds). A data directory of its own that lost its bootstrap.json (not
 * shared) gets new demo accounts, suffixed, since nobody else has the old ones' secrets.
 */
export async function tokenBootstrap(
  token: TokenCore,
  current: Readonly<Record<string, string>>,
  ctx?: BootstrapContext,
): Promise<Record<string, string>> {
  const demo = await demoAccounts(token, current, ctx);
  return { ...demo, ...(await platformAdministrator(token, demo.realm, current, ctx)) };
}

/**
 * The platform administrator (role `platform-admin`) in the default realm, `admin`, made once: by
 * the first start, or the first start after an upgrade from a version without it (its data
 * directory's file then gains `admin_username` and `admin_password`). Replicas sharing a database
 * find the one the first made and take its name; only the first's file holds the password.
 */
async function platformAdministrator(
  token: TokenCore,
  realm: string,
  current: Readonly<Record<string, string>>,
  ctx?: BootstrapContext,
): Promise<Record<string, string>> {
  const { store, admin } = token;
  if (current.admin_username && (await store.users.get(realm, current.admin_username))) {
    return current.admin_password
      ? { admin_username: current.admin_username, admin_password: current.admin_password }
      : { admin_username: current.admin_username };
  }
  if (ctx?.shared) {
    const found = await store.users.get(realm, ADMIN_USER);
    if (found?.roles.includes(PLATFORM_ADMIN_ROLE)) return { admin_username: found.username };
  }
  const password = randomSecret(18);
  const user = await createFree(
    ADMIN_USER,
    (n) => store.users.get(realm, n),
    (username) => admin.createUser({ realm, username, password, roles: [PLATFORM_ADMIN_ROLE] }),
  );
  return { admin_username: user.username, admin_password: password };
}

/** The default realm, the demo client and the demo user (created once; ids only when another replica made them). */
async function demoAccounts(
  token: TokenCore,
  current: Readonly<Record<string, string>>,
  ctx?: BootstrapContext,
): Promise<Record<string, string>> {
  const { store, admin } = token;
  const defaultRealm = await store.realms.getDefaultId();
  if (defaultRealm && FIELDS.every((f) => current[f])) return Object.fromEntries(FIELDS.map((f) => [f, current[f]]));
  if (defaultRealm && ctx?.shared) {
    const [client, user] = await Promise.all([store.clients.get(defaultRealm, DEMO_CLIENT), store.users.get(defaultRealm, DEMO_USER)]);
    if (client && user) {
      ctx.joined();
      return { realm: defaultRealm, tenant_id: client.tenantId, client_id: client.clientId, username: user.username };
    }
  }

  const realm =
    defaultRealm ??
    (await admin.createRealm({ name: 'default' }).then(
      (r) => r.id,
      async (err: unknown) => {
        const winner = err instanceof Conflict ? await store.realms.getDefaultId() : undefined;
        if (!winner) throw err;
        return winner;
      },
    ));
  const tenant = realm;
  const client = await createFree(
    DEMO_CLIENT,
    (n) => store.clients.get(realm, n),
    (clientId) => admin.createClient({ realm, clientId, tenantId: tenant, roles: DEMO_ROLES }),
  );
  const password = randomSecret(18);
  const user = await createFree(
    DEMO_USER,
    (n) => store.users.get(realm, n),
    (username) => admin.createUser({ realm, username, password, tenantId: tenant, roles: DEMO_ROLES }),
  );
  return { realm, tenant_id: tenant, client_id: client.clientId, client_secret: client.client_secret, username: user.username, password };
}
