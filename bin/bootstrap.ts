import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { randomSecret } from '../core/token/secrets';
import type { TokenCore } from '../core/token';

/** DECISIONS: what the first start creates and writes to `<data dir>/bootstrap.json` (mode 0600). */
export interface Bootstrap {
  realm: string;
  tenant_id: string;
  client_id: string;
  client_secret: string;
  username: string;
  password: string;
}

export const bootstrapPath = (dataDir: string) => join(dataDir, 'bootstrap.json');

export const DEMO_ROLES = ['search:read', 'search:write'];

/**
 * Creates the default realm, a confidential demo client and a demo user when the data directory
 * has no realm yet. Returns the credentials and whether they were created now.
 */
export async function ensureBootstrap(dataDir: string, token: TokenCore): Promise<{ bootstrap: Bootstrap; created: boolean }> {
  const file = bootstrapPath(dataDir);
  if (token.store.realms.getDefaultId()) {
    const bootstrap = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Bootstrap) : undefined;
    if (bootstrap) return { bootstrap, created: false };
  }
  const realm = token.store.realms.getDefaultId() ?? (await token.admin.createRealm({ name: 'default' })).id;
  const tenant = realm;
  // A data dir that lost its bootstrap.json keeps its old demo accounts; new ones get a suffix.
  const free = (name: string, taken: (n: string) => unknown) => (taken(name) ? `${name}-${randomBytes(3).toString('hex')}` : name);
  const clientId = free('demo-client', (n) => token.store.clients.get(realm, n));
  const client = await token.admin.createClient({ realm, clientId, tenantId: tenant, roles: DEMO_ROLES });
  const password = randomSecret(18);
  const username = free('demo-user', (n) => token.store.users.get(realm, n));
  const user = await token.admin.createUser({ realm, username, password, tenantId: tenant, roles: DEMO_ROLES });
  const bootstrap: Bootstrap = {
    realm,
    tenant_id: tenant,
    client_id: client.clientId,
    client_secret: client.client_secret,
    username: user.username,
    password,
  };
  writeFileSync(file, `${JSON.stringify(bootstrap, null, 2)}\n`, { mode: 0o600 });
  return { bootstrap, created: true };
}
