import { randomUUID } from 'node:crypto';
import type { ClientRecord, KeyRecord, RealmRecord, SessionRecord, TokenStore, UserRecord } from '../../../core/token/ports';

import type { Opened } from '../../shared/two-handles';

export { useOpened, type Opened } from '../../shared/two-handles';

/** `fresh`: a store nothing was written to yet (the cases that need an empty one ask for it; others share). */
export type OpenStore = (opts?: { fresh?: boolean }) => Promise<Opened<TokenStore>>;

export const T0 = Date.UTC(2026, 0, 1);
/** A name nobody else used (cases may share one database). */
export const unique = (what: string) => `${what}-${randomUUID().slice(0, 8)}`;

export const realmRecord = (o: Partial<RealmRecord> = {}): RealmRecord => ({
  id: randomUUID(),
  name: unique('realm'),
  enabled: true,
  accessTokenLifespan: 300,
  refreshTokenLifespan: 1800,
  refreshSecret: 'ab'.repeat(64),
  createdAt: T0,
  version: 1,
  ...o,
});

export const keyRecord = (realmId: string, o: Partial<KeyRecord> = {}): KeyRecord => {
  const kid = o.kid ?? unique('kid');
  return {
    kid,
    realmId,
    alg: 'RS256',
    privateKeyPem: `-----BEGIN PRIVATE KEY-----\n${kid}\n-----END PRIVATE KEY-----\n`,
    publicJwk: { kty: 'RSA', n: 'bW9kdWx1cw', e: 'AQAB', kid, alg: 'RS256', use: 'sig' },
    createdAt: T0,
    ...o,
  };
};

export const clientRecord = (realmId: string, o: Partial<ClientRecord> = {}): ClientRecord => ({
  id: randomUUID(),
  realmId,
  clientId: unique('svc'),
  secretHash: 'hmac-sha256$first',
  enabled: true,
  roles: ['search:read', 'search:write'],
  scopes: ['openid', 'search'],
  tenantId: 'tenant-a',
  redirectUris: [],
  postLogoutRedirectUris: [],
  webOrigins: [],
  createdAt: T0,
  version: 1,
  ...o,
});

export const userRecord = (realmId: string, o: Partial<UserRecord> = {}): UserRecord => ({
  id: randomUUID(),
  realmId,
  username: unique('user'),
  passwordHash: 'scrypt$first',
  enabled: true,
  roles: ['search:read'],
  tenantId: 'tenant-a',
  email: 'ann@example.com',
  emailVerified: false,
  createdAt: T0,
  version: 1,
  ...o,
});

export const sessionRecord = (realmId: string, o: Partial<SessionRecord> = {}): SessionRecord => ({
  id: randomUUID(),
  realmId,
  clientId: 'svc',
  userId: null,
  scope: 'openid search',
  refreshJti: randomUUID(),
  browserSessionId: null,
  createdAt: T0,
  expiresAt: T0 + 1_800_000,
  revokedAt: null,
  ...o,
});

/** A new realm (with its key and the given clients) written through `store`. */
export async function givenRealm(store: TokenStore, o: Partial<RealmRecord> = {}, clients: (realmId: string) => ClientRecord[] = () => []) {
  const realm = realmRecord(o);
  const key = keyRecord(realm.id);
  expect(await store.realms.create(realm, { key, clients: clients(realm.id) })).toBe(true);
  return { realm, key };
}

/** `n` calls at once, alternating between the two handles. */
export const inParallel = <T>(s: Opened<TokenStore>, n: number, call: (store: TokenStore, i: number) => Promise<T>) =>
  Promise.all(Array.from({ length: n }, (_, i) => call(i % 2 ? s.two : s.one, i)));
