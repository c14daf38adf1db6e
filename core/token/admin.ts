import { randomBytes, randomUUID } from 'node:crypto';
import type { Clock } from '../shared/clock';
import { BadRequest, Conflict } from '../shared/errors';
import { RealmNotFound } from './errors';
import { LOGIN_CLIENT_ID } from './authenticate';
import { CONSOLE_CLIENT, checkBrowserSettings, type BrowserSettings } from './browser/client-settings';
import { isGeneratedSecret, type KeyedHasher } from './keyed-hash';
import type { KeyGenerator } from './keys';
import type { ClientRecord, RealmRecord, TokenStore, UserRecord } from './ports';
import { revokedUntil } from './revocations';
import { createSessionAdmin } from './admin-sessions';
import type { ClientInput, ClientView, RealmInput, RealmView, UserInput, UserView } from './admin-types';
import { createUpdateAdmin } from './admin-updates';
import { casUpdate } from './cas-update';

export type { BrowserSessionView } from './admin-sessions';
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

export type { ClientInput, ClientView, RealmInput, RealmView, UserInput, UserView } from './admin-types';

export interface TokenAdminDeps {
  store: TokenStore;
  clock: Clock;
  hasher: SecretHasher;
  keyed: KeyedHasher;
  generateKey: KeyGenerator;
  /** Told when a realm got a new signing key here (the key ring signs with it at once). */
  keyAdded?(realmId: string): void;
  /** Whether the user is locked for every source (the failure counts say); never when absent. */
  lockedForAll?(user: UserRecord): Promise<boolean>;
  /** After sessions were ended: resolves once this process's revoked-sessions list holds them. */
  revoked?(): Promise<void>;
}

export function createTokenAdmin(deps: TokenAdminDeps) {
  const { store, clock, hasher, keyed } = deps;
  const hashClientSecret = async (secret: string) => (isGeneratedSecret(secret) ? keyed.hash(secret) : hasher.hash(secret));
  /** Ends the sessions of `of` (their access tokens refused everywhere within a second): how many. */
  const endSessions = async (realm: RealmRecord, of: { userId?: string; clientId?: string } = {}) => {
    const now = clock.now();
    const ended = await store.sessions.revokeAll({ realmId: realm.id, ...of }, now, revokedUntil(realm, now));
    if (ended) await deps.revoked?.().catch(() => undefined);
    return ended;
  };
  const iso = (ms: number) => new Date(ms).toISOString();

  async function realmOf(id: string | undefined): Promise<RealmRecord> {
    const realmId = id || (await store.realms.getDefaultId());
    const realm = realmId ? await store.realms.get(realmId) : undefined;
    if (!realm) throw new RealmNotFound();
    return realm;
  }

  function checkPassword(password: string) {
    if (password.length < 8) throw new BadRequest('a password needs at least 8 characters');
  }

  function checkName(kind: string, value: string) {
    if (!NAME.test(value)) throw new BadRequest(`${kind} must be 1-128 characters: letters, digits and . _ : @ -`);
  }

  const realmView = ({ refreshSecret: _secret, ...r }: RealmRecord, defaultId: string | undefined): RealmView => ({
    ...r,
    createdAt: iso(r.createdAt),
    default: defaultId === r.id,
  });
  const realmViews = async (realms: RealmRecord[]) => {
    const defaultId = await store.realms.getDefaultId();
    return realms.map((r) => realmView(r, defaultId));
  };
  const clientView = ({ secretHash, id: _id, ...c }: ClientRecord): ClientView => ({
    ...c,
    public: secretHash === null,
    createdAt: iso(c.createdAt),
  });
  const userView = async (user: UserRecord): Promise<UserView> => {
    const { passwordHash: _p, ...u } = user;
    return { ...u, locked: (await deps.lockedForAll?.(user)) ?? false, createdAt: iso(u.createdAt) };
  };

  async function insertClient(input: ClientInput, secretHash: string | null): Promise<{ view: ClientView; realm: string }> {
    const realm = await realmOf(input.realm);
    checkName('client id', input.clientId);
    const taken = () => new Conflict(`client '${input.clientId}' already exists in this realm`);
    const browser = checkBrowserSettings(input);
    if (await store.clients.get(realm.id, input.clientId)) throw taken();
    const client: ClientRecord = {
      id: randomUUID(),
      realmId: realm.id,
      clientId: input.clientId,
      secretHash,
      enabled: true,
      roles: input.roles ?? [],
      scopes: input.scopes?.length ? parseScopes(input.scopes.join(' ')) : DEFAULT_SCOPES,
      tenantId: input.tenantId || realm.id,
      redirectUris: browser.redirectUris ?? [],
      postLogoutRedirectUris: browser.postLogoutRedirectUris ?? [],
      webOrigins: browser.webOrigins ?? [],
      createdAt: clock.now(),
      version: 1,
    };
    if (!(await store.clients.insert(client))) throw taken();
    return { view: clientView(client), realm: realm.id };
  }

  return {
    async createRealm(input: RealmInput = {}): Promise<RealmView> {
      const id = input.id ?? randomUUID();
      const name = input.name ?? id;
      checkName('realm name', name);
      const access = input.accessTokenLifespan ?? 300;
      const refresh = input.refreshTokenLifespan ?? 1800;
      if (!(access > 0 && refresh >= access))
        throw new BadRequest('lifespans must be positive, and the refresh lifespan at least the access one');
      const taken = () => new Conflict(`realm '${name}' already exists`);
      if ((await store.realms.get(id)) || (await store.realms.list()).some((r) => r.name.toLowerCase() === name.toLowerCase()))
        throw taken();
      const now = clock.now();
      const key = await deps.generateKey(id, now);
      const realm: RealmRecord = {
        id,
        name,
        enabled: true,
        accessTokenLifespan: access,
        refreshTokenLifespan: refresh,
        refreshSecret: randomBytes(64).toString('hex'),
        createdAt: now,
        version: 1,
      };
      const login: ClientRecord = {
        id: randomUUID(),
        realmId: id,
        clientId: LOGIN_CLIENT_ID,
        secretHash: null,
        enabled: true,
        roles: [],
        scopes: DEFAULT_SCOPES,
        tenantId: id,
        redirectUris: [],
        postLogoutRedirectUris: [],
        webOrigins: [],
        createdAt: now,
        version: 1,
      };
      const console: ClientRecord = { ...login, id: randomUUID(), clientId: CONSOLE_CLIENT.clientId, ...CONSOLE_CLIENT.settings };
      // One step: another process creating the same name meanwhile makes this one a conflict, never a half realm.
      if (!(await store.realms.create(realm, { key, clients: [login, console] }))) throw taken();
      return realmView(realm, await store.realms.getDefaultId());
    },

    listRealms: async (): Promise<RealmView[]> => realmViews(await store.realms.list()),

    async setRealmEnabled(id: string, enabled: boolean): Promise<RealmView> {
      const realm = await realmOf(id);
      await store.realms.setEnabled(realm.id, enabled);
      if (!enabled) await endSessions(realm);
      return (await realmViews([{ ...realm, enabled }]))[0];
    },

    async setDefaultRealm(id: string): Promise<RealmView> {
      const realm = await realmOf(id);
      await store.realms.setDefaultId(realm.id);
      return realmView(realm, realm.id);
    },

    /** A confidential client: its secret (generated unless given) is returned once, kept only as a hash. */
    async createClient(input: ClientInput): Promise<ClientView & { client_secret: string; realm: string }> {
      const secret = input.secret ?? randomSecret();
      if (secret.length < 16) throw new BadRequest('a client secret needs at least 16 characters');
      const { view, realm } = await insertClient(input, await hashClientSecret(secret));
      return { ...view, client_secret: secret, realm };
    },

    /** A public client (a browser or native app): no secret; people sign in to it with PKCE. */
    async createPublicClient(input: Omit<ClientInput, 'secret'>): Promise<ClientView & { realm: string }> {
      const { view, realm } = await insertClient(input, null);
      return { ...view, realm };
    },

    /** Changes a client's redirect URIs, post-logout redirect URIs or web origins (those given; the rest stay). */
    async updateClient(
      realm: string | undefined,
      clientId: string,
      settings: Partial<BrowserSettings>,
    ): Promise<ClientView & { realm: string }> {
      const r = await realmOf(realm);
      const browser = checkBrowserSettings(settings);
      if (!Object.values(browser).some((v) => v !== undefined))
        throw new BadRequest('nothing to change: give redirect URIs, post-logout redirect URIs or web origins');
      if (!(await store.clients.setBrowserSettings(r.id, clientId, browser)))
        throw new BadRequest(`no client '${clientId}' in realm ${r.id}`);
      return { ...clientView((await store.clients.get(r.id, clientId))!), realm: r.id };
    },

    /** A new secret for a confidential client, shown once; the old one stops working at once. */
    async rotateClientSecret(
      realm: string | undefined,
      clientId: string,
      guard?: (current: ClientRecord) => void,
    ): Promise<ClientView & { client_secret: string; realm: string }> {
      const r = await realmOf(realm);
      const secret = randomSecret();
      const { after } = await casUpdate({
        what: `client '${clientId}' in realm ${r.id}`,
        read: () => store.clients.get(r.id, clientId),
        guard: (current) => {
          if (current.secretHash === null) throw new BadRequest(`no confidential client '${clientId}' in realm ${r.id}`);
          guard?.(current);
        },
        write: (_current, version) => store.clients.update(r.id, clientId, { secretHash: keyed.hash(secret) }, version),
      });
      return { ...clientView(after), client_secret: secret, realm: r.id };
    },

    /**
     * A new signing key for the realm. New tokens carry its kid; the old keys stay in the JWKS so
     * tokens already issued keep verifying until they expire.
     */
    async rotateRealmKey(id: string | undefined): Promise<{ realm: string; kid: string; keys: number }> {
      const r = await realmOf(id);
      const key = await deps.generateKey(r.id, Math.max(clock.now(), ((await store.keys.active(r.id))?.createdAt ?? 0) + 1));
      await store.keys.insert(key);
      deps.keyAdded?.(r.id);
      return { realm: r.id, kid: key.kid, keys: (await store.keys.list(r.id)).length };
    },

    listClients: async (realm?: string): Promise<ClientView[]> => (await store.clients.list((await realmOf(realm)).id)).map(clientView),

    async setClientEnabled(realm: string | undefined, clientId: string, enabled: boolean): Promise<ClientView> {
      const r = await realmOf(realm);
      if (!(await store.clients.setEnabled(r.id, clientId, enabled))) throw new BadRequest(`no client '${clientId}' in realm ${r.id}`);
      if (!enabled) await endSessions(r, { clientId });
      return clientView((await store.clients.get(r.id, clientId))!);
    },

    async createUser(input: UserInput): Promise<UserView & { realm: string }> {
      const realm = await realmOf(input.realm);
      checkName('username', input.username);
      checkPassword(input.password);
      const taken = () => new Conflict(`user '${input.username}' already exists in this realm`);
      if (await store.users.get(realm.id, input.username)) throw taken();
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
        createdAt: clock.now(),
        version: 1,
      };
      if (!(await store.users.insert(user))) throw taken();
      return { ...(await userView(user)), realm: realm.id };
    },

    listUsers: async (realm?: string): Promise<UserView[]> =>
      Promise.all((await store.users.list((await realmOf(realm)).id)).map(userView)),

    async setUserEnabled(realm: string | undefined, username: string, enabled: boolean): Promise<UserView> {
      const r = await realmOf(realm);
      if (!(await store.users.setEnabled(r.id, username, enabled))) throw new BadRequest(`no user '${username}' in realm ${r.id}`);
      const user = (await store.users.get(r.id, username))!;
      if (!enabled) await endSessions(r, { userId: user.id });
      return await userView(user);
    },

    /**
     * A new password (hashed here); lifts every lock on the account (its counts start afresh) and
     * ends the user's sessions. Written on the version `guard` saw (casUpdate), so a role granted
     * meanwhile is never written over unchecked.
     */
    async setPassword(
      realm: string | undefined,
      username: string,
      password: string,
      guard?: (current: UserRecord) => void,
    ): Promise<UserView & { sessions_ended: number }> {
      const r = await realmOf(realm);
      checkPassword(password);
      const passwordHash = await hasher.hash(password);
      const { after } = await casUpdate({
        what: `user '${username}' in realm ${r.id}`,
        read: () => store.users.get(r.id, username),
        guard,
        write: (_current, version) => store.users.update(r.id, username, { passwordHash }, version),
      });
      return { ...(await userView(after)), sessions_ended: await endSessions(r, { userId: after.id }) };
    },

    /** Ends every session of the user: their access and refresh tokens stop working at once. */
    async logout(realm: string | undefined, username: string): Promise<{ realm: string; username: string; sessions_ended: number }> {
      const r = await realmOf(realm);
      const user = await store.users.get(r.id, username);
      if (!user) throw new BadRequest(`no user '${username}' in realm ${r.id}`);
      return { realm: r.id, username: user.username, sessions_ended: await endSessions(r, { userId: user.id }) };
    },

    ...createUpdateAdmin({ store, realmOf, endSessions, checkName, realmViews, clientView, userView }),

    /** The views of records an admin list read and paged itself. */
    realmViews,
    clientView,
    userView,

    ...createSessionAdmin({ store, clock, realmOf, revoked: () => deps.revoked?.() ?? Promise.resolve() }),

    /**
     * Drops expired sessions, failure-throttle windows and revoked-sessions entries; run
     * periodically by the server. An entry is kept ten minutes past its end, beyond any verifier's
     * clock tolerance (TOKEN_CLOCK_SKEW_SECONDS is at most 300).
     */
    prune: async (): Promise<number> =>
      (await store.sessions.prune(clock.now())) +
      (await store.browserSessions.prune(clock.now())) +
      (await store.codes.prune(clock.now())) +
      (await store.failures.prune(clock.now())) +
      (await store.revocations.prune(clock.now() - 10 * 60_000)),
  };
}

export type TokenAdmin = ReturnType<typeof createTokenAdmin>;
