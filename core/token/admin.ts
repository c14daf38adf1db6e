import { randomBytes, randomUUID } from 'node:crypto';
import type { Clock } from '../shared/clock';
import { BadRequest, Conflict } from '../shared/errors';
import { RealmNotFound } from './errors';
import { LOGIN_CLIENT_ID } from './authenticate';
import { isGeneratedSecret, type KeyedHasher } from './keyed-hash';
import type { KeyGenerator } from './keys';
import type { ClientRecord, RealmRecord, TokenStore, UserRecord } from './ports';
import { parseScopes } from './scopes';
import { randomSecret, type SecretHasher } from './secrets';

/**
 * Administration of realms, clients and users (the `platform` command). Rules:
 * - every realm gets its own RS256 signing key and the public login client `platform-login`;
 * - client secrets are generated here, returned once, and kept only as keyed hashes (scrypt for
 *   one a caller chose);
 * - passwords need at least 8 characters; usernames and client ids are unique per realm;
 * - access tokens never outlive the refresh token (session) they belong to;
 * - disabling a realm, client or user, or setting a user's password, ends its sessions, so
 *   enabling it again does not revive old tokens.
 */
export const DEFAULT_SCOPES = ['openid', 'profile', 'email'];
const NAME = /^[A-Za-z0-9][\w.:@-]{0,127}$/;

export interface RealmInput { name?: string; id?: string; accessTokenLifespan?: number; refreshTokenLifespan?: number }
export interface ClientInput { realm?: string; clientId: string; tenantId?: string; roles?: string[]; scopes?: string[]; secret?: string }
export interface UserInput { realm?: string; username: string; password: string; tenantId?: string; roles?: string[]; email?: string }

export type RealmView = Omit<RealmRecord, 'createdAt' | 'refreshSecret'> & { createdAt: string; default: boolean };
export type ClientView = Omit<ClientRecord, 'secretHash' | 'createdAt' | 'id'> & { public: boolean; createdAt: string };
export type UserView = Omit<UserRecord, 'passwordHash' | 'failedLogins' | 'lockedUntil' | 'createdAt'> & { locked: boolean; createdAt: string };

export interface TokenAdminDeps {
  store: TokenStore;
  clock: Clock;
  hasher: SecretHasher;
  keyed: KeyedHasher;
  generateKey: KeyGenerator;
}

export function createTokenAdmin(deps: TokenAdminDeps) {
  const { store, clock, hasher, keyed } = deps;
  const hashClientSecret = async (secret: string) => (isGeneratedSecret(secret) ? keyed.hash(secret) : hasher.hash(secret));
  const endSessions = (of: { realmId: string; userId?: string; clientId?: string }) => store.sessions.revokeAll(of, clock.now());
  const iso = (ms: number) => new Date(ms).toISOString();

  function realmOf(id: string | undefined): RealmRecord {
    const realmId = id || store.realms.getDefaultId();
    const realm = realmId ? store.realms.get(realmId) : undefined;
    if (!realm) throw new RealmNotFound();
    return realm;
  }

  function checkPassword(password: string) {
    if (password.length < 8) throw new BadRequest('a password needs at least 8 characters');
  }

  function checkName(kind: string, value: string) {
    if (!NAME.test(value)) throw new BadRequest(`${kind} must be 1-128 characters: letters, digits and . _ : @ -`);
  }

  const realmView = ({ refreshSecret: _secret, ...r }: RealmRecord): RealmView => ({ ...r, createdAt: iso(r.createdAt), default: store.realms.getDefaultId() === r.id });
  const clientView = ({ secretHash, id: _id, ...c }: ClientRecord): ClientView => ({ ...c, public: secretHash === null, createdAt: iso(c.createdAt) });
  const userView = ({ passwordHash: _p, failedLogins: _f, lockedUntil, ...u }: UserRecord): UserView => ({
    ...u,
    locked: lockedUntil !== null && lockedUntil > clock.now(),
    createdAt: iso(u.createdAt),
  });

  return {
    async createRealm(input: RealmInput = {}): Promise<RealmView> {
      const id = input.id ?? randomUUID();
      const name = input.name ?? id;
      checkName('realm name', name);
      const access = input.accessTokenLifespan ?? 300;
      const refresh = input.refreshTokenLifespan ?? 1800;
      if (!(access > 0 && refresh >= access)) throw new BadRequest('lifespans must be positive, and the refresh lifespan at least the access one');
      if (store.realms.get(id) || store.realms.list().some((r) => r.name.toLowerCase() === name.toLowerCase())) {
        throw new Conflict(`realm '${name}' already exists`);
      }
      const now = clock.now();
      const key = await deps.generateKey(id, now);
      const realm: RealmRecord = {
        id, name, enabled: true, accessTokenLifespan: access, refreshTokenLifespan: refresh,
        refreshSecret: randomBytes(64).toString('hex'), createdAt: now,
      };
      store.realms.insert(realm);
      store.keys.insert(key);
      store.clients.insert({
        id: randomUUID(), realmId: id, clientId: LOGIN_CLIENT_ID, secretHash: null, enabled: true,
        roles: [], scopes: DEFAULT_SCOPES, tenantId: id, createdAt: now,
      });
      if (!store.realms.getDefaultId()) store.realms.setDefaultId(id);
      return realmView(realm);
    },

    listRealms: (): RealmView[] => store.realms.list().map(realmView),

    setRealmEnabled(id: string, enabled: boolean): RealmView {
      const realm = realmOf(id);
      store.realms.setEnabled(realm.id, enabled);
      if (!enabled) endSessions({ realmId: realm.id });
      return realmView({ ...realm, enabled });
    },

    setDefaultRealm(id: string): RealmView {
      const realm = realmOf(id);
      store.realms.setDefaultId(realm.id);
      return realmView(realm);
    },

    async createClient(input: ClientInput): Promise<ClientView & { client_secret: string; realm: string }> {
      const realm = realmOf(input.realm);
      checkName('client id', input.clientId);
      if (store.clients.get(realm.id, input.clientId)) throw new Conflict(`client '${input.clientId}' already exists in this realm`);
      const secret = input.secret ?? randomSecret();
      if (secret.length < 16) throw new BadRequest('a client secret needs at least 16 characters');
      const client: ClientRecord = {
        id: randomUUID(),
        realmId: realm.id,
        clientId: input.clientId,
        secretHash: await hashClientSecret(secret),
        enabled: true,
        roles: input.roles ?? [],
        scopes: input.scopes?.length ? parseScopes(input.scopes.join(' ')) : DEFAULT_SCOPES,
        tenantId: input.tenantId || realm.id,
        createdAt: clock.now(),
      };
      store.clients.insert(client);
      return { ...clientView(client), client_secret: secret, realm: realm.id };
    },

    /** A new secret for a confidential client, shown once; the old one stops working at once. */
    async rotateClientSecret(realm: string | undefined, clientId: string): Promise<ClientView & { client_secret: string; realm: string }> {
      const r = realmOf(realm);
      const secret = randomSecret();
      if (!store.clients.setSecretHash(r.id, clientId, keyed.hash(secret))) {
        throw new BadRequest(`no confidential client '${clientId}' in realm ${r.id}`);
      }
      return { ...clientView(store.clients.get(r.id, clientId)!), client_secret: secret, realm: r.id };
    },

    /**
     * A new signing key for the realm. New tokens carry its kid; the old keys stay in the JWKS so
     * tokens already issued keep verifying until they expire.
     */
    async rotateRealmKey(id: string | undefined): Promise<{ realm: string; kid: string; keys: number }> {
      const r = realmOf(id);
      const key = await deps.generateKey(r.id, Math.max(clock.now(), (store.keys.active(r.id)?.createdAt ?? 0) + 1));
      store.keys.insert(key);
      return { realm: r.id, kid: key.kid, keys: store.keys.list(r.id).length };
    },

    listClients: (realm?: string): ClientView[] => store.clients.list(realmOf(realm).id).map(clientView),

    setClientEnabled(realm: string | undefined, clientId: string, enabled: boolean): ClientView {
      const r = realmOf(realm);
      if (!store.clients.setEnabled(r.id, clientId, enabled)) throw new BadRequest(`no client '${clientId}' in realm ${r.id}`);
      if (!enabled) endSessions({ realmId: r.id, clientId });
      return clientView(store.clients.get(r.id, clientId)!);
    },

    async createUser(input: UserInput): Promise<UserView & { realm: string }> {
      const realm = realmOf(input.realm);
      checkName('username', input.username);
      checkPassword(input.password);
      if (store.users.get(realm.id, input.username)) throw new Conflict(`user '${input.username}' already exists in this realm`);
      const user: UserRecord = {
        id: randomUUID(),
        realmId: realm.id,
        username: input.username,
        passwordHash: await hasher.hash(input.password),
        enabled: true,
        roles: input.roles ?? [],
        tenantId: input.tenantId || realm.id,
        email: input.email ?? null,
        emailVerified: false,
        failedLogins: 0,
        lockedUntil: null,
        createdAt: clock.now(),
      };
      store.users.insert(user);
      return { ...userView(user), realm: realm.id };
    },

    listUsers: (realm?: string): UserView[] => store.users.list(realmOf(realm).id).map(userView),

    setUserEnabled(realm: string | undefined, username: string, enabled: boolean): UserView {
      const r = realmOf(realm);
      if (!store.users.setEnabled(r.id, username, enabled)) throw new BadRequest(`no user '${username}' in realm ${r.id}`);
      const user = store.users.get(r.id, username)!;
      if (!enabled) endSessions({ realmId: r.id, userId: user.id });
      return userView(user);
    },

    /** A new password (hashed here); clears a lock and ends the user's sessions. */
    async setPassword(realm: string | undefined, username: string, password: string): Promise<UserView & { sessions_ended: number }> {
      const r = realmOf(realm);
      checkPassword(password);
      if (!store.users.setPasswordHash(r.id, username, await hasher.hash(password))) throw new BadRequest(`no user '${username}' in realm ${r.id}`);
      const user = store.users.get(r.id, username)!;
      return { ...userView(user), sessions_ended: endSessions({ realmId: r.id, userId: user.id }) };
    },

    /** Ends every session of the user: their access and refresh tokens stop working at once. */
    logout(realm: string | undefined, username: string): { realm: string; username: string; sessions_ended: number } {
      const r = realmOf(realm);
      const user = store.users.get(r.id, username);
      if (!user) throw new BadRequest(`no user '${username}' in realm ${r.id}`);
      return { realm: r.id, username: user.username, sessions_ended: endSessions({ realmId: r.id, userId: user.id }) };
    },

    /** Drops expired sessions and failure-throttle windows; run periodically by the server. */
    prune: (): number => store.sessions.prune(clock.now()) + store.failures.prune(clock.now()),
  };
}

export type TokenAdmin = ReturnType<typeof createTokenAdmin>;
