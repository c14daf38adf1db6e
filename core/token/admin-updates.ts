import { BadRequest } from '../shared/errors';
import { checkBrowserSettings } from './browser/client-settings';
import { casUpdate, definedOnly, sameSet } from './cas-update';
import type { ClientPatch, ClientRecord, RealmPatch, RealmRecord, TokenStore, UserPatch, UserRecord } from './ports';
import { parseScopes } from './scopes';

/** What the admin API's updates need of the token admin (core/token/admin.ts); its views as it makes them. */
export interface UpdateAdminDeps<RV, CV, UV> {
  store: TokenStore;
  realmOf(this: void, id: string | undefined): Promise<RealmRecord>;
  /** Ends the sessions of a realm, or of a user or client of it: how many. */
  endSessions(this: void, realm: RealmRecord, of?: { userId?: string; clientId?: string }): Promise<number>;
  checkName(this: void, kind: string, value: string): void;
  realmViews(this: void, realms: RealmRecord[]): Promise<RV[]>;
  clientView(this: void, client: ClientRecord): CV;
  userView(this: void, user: UserRecord): Promise<UV>;
}

/**
 * The admin API's updates of realms, clients and users: each a compare-and-set on the version
 * read (cas-update.ts), ending the sessions a change makes stale.
 */
export function createUpdateAdmin<RV, CV, UV>(deps: UpdateAdminDeps<RV, CV, UV>) {
  const { store, realmOf, endSessions, checkName, realmViews, clientView, userView } = deps;
  return {
    /**
     * Changes a realm's name, enabled flag or lifespans (compare-and-set, casUpdate); disabling it
     * ends its sessions.
     */
    async updateRealm(id: string, patch: RealmPatch, ifVersion?: number): Promise<RV> {
      if (patch.name !== undefined) checkName('realm name', patch.name);
      const { after } = await casUpdate({
        what: `realm '${id}'`,
        read: () => store.realms.get(id),
        ifVersion,
        taken: `realm '${patch.name}' already exists`,
        write: (current, version) => {
          const access = patch.accessTokenLifespan ?? current.accessTokenLifespan;
          const refresh = patch.refreshTokenLifespan ?? current.refreshTokenLifespan;
          if (!(access > 0 && refresh >= access))
            throw new BadRequest('lifespans must be positive, and the refresh lifespan at least the access one');
          return store.realms.update(id, patch, version);
        },
      });
      if (patch.enabled === false) await endSessions(after);
      return (await realmViews([after]))[0];
    },

    /**
     * Changes a client's settings (compare-and-set, casUpdate; `guard` sees the client first).
     * Disabling it, or changing its roles, scopes or tenant, ends its sessions: tokens carry them.
     */
    async updateClientSettings(
      realmId: string,
      clientId: string,
      patch: ClientPatch,
      opts: { ifVersion?: number; guard?: (current: ClientRecord) => void } = {},
    ): Promise<CV> {
      const realm = await realmOf(realmId);
      const checked: ClientPatch = { ...patch, ...definedOnly(checkBrowserSettings(patch)) };
      if (patch.scopes !== undefined) {
        checked.scopes = parseScopes(patch.scopes.join(' '));
        if (checked.scopes.length === 0) throw new BadRequest('scopes: at least one');
      }
      if (patch.tenantId !== undefined) checkName('tenant id', patch.tenantId);
      const { before, after } = await casUpdate({
        what: `client '${clientId}' in realm ${realm.id}`,
        read: () => store.clients.get(realm.id, clientId),
        ifVersion: opts.ifVersion,
        guard: opts.guard,
        write: (_current, version) => store.clients.update(realm.id, clientId, checked, version),
      });
      const carried = !sameSet(before.roles, after.roles) || !sameSet(before.scopes, after.scopes) || before.tenantId !== after.tenantId;
      if (!after.enabled || carried) await endSessions(realm, { clientId: after.clientId });
      return clientView(after);
    },

    /**
     * Changes a user's enabled flag, roles, email or tenant (compare-and-set, casUpdate; `guard`
     * sees the user first). Disabling them, or changing their roles or tenant, ends their sessions.
     */
    async updateUser(
      realmId: string,
      username: string,
      patch: UserPatch,
      opts: { ifVersion?: number; guard?: (current: UserRecord) => void } = {},
    ): Promise<UV> {
      const realm = await realmOf(realmId);
      if (patch.tenantId !== undefined) checkName('tenant id', patch.tenantId);
      // A new address is not verified until the user shows it is theirs.
      const checked: UserPatch = patch.email !== undefined ? { ...patch, emailVerified: false } : patch;
      const { before, after } = await casUpdate({
        what: `user '${username}' in realm ${realm.id}`,
        read: () => store.users.get(realm.id, username),
        ifVersion: opts.ifVersion,
        guard: opts.guard,
        write: (current, version) => store.users.update(realm.id, username, patch.email === current.email ? patch : checked, version),
      });
      if (!after.enabled || !sameSet(before.roles, after.roles) || before.tenantId !== after.tenantId)
        await endSessions(realm, { userId: after.id });
      return userView(after);
    },

    /**
     * Lifts every lock on a user's account, for every address: the failure counts are kept per
     * version of the account (lockout.ts), and this makes a new one, as a new password does.
     */
    async unlockUser(realmId: string, username: string, guard?: (current: UserRecord) => void): Promise<UV> {
      const realm = await realmOf(realmId);
      const { after } = await casUpdate({
        what: `user '${username}' in realm ${realm.id}`,
        read: () => store.users.get(realm.id, username),
        guard,
        // A write of what is there: the version moves on, and with it the account's counts.
        write: (current, version) => store.users.update(realm.id, username, { enabled: current.enabled }, version),
      });
      return userView(after);
    },
  };
}
