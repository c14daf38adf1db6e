import type { TokenStore } from '../../../core/token/ports';
import { browserCases } from './store-contracts-browser';
import { failureCounterCases } from './store-contracts-failures';
import { pageCases } from './store-contracts-pages';
import { revocationCases } from './store-contracts-revocations';
import { sessionCases } from './store-contracts-sessions';
import { updateCases } from './store-contracts-updates';
import {
  clientRecord,
  givenRealm,
  inParallel,
  keyRecord,
  realmRecord,
  T0,
  unique,
  useOpened,
  userRecord,
  type OpenStore,
  type Opened,
} from './store-fixtures';

/**
 * The contract every adapter of the token store passes (core/token/ports.ts), written against the
 * port only: every method, the steps that must be atomic under 50 parallel calls spread over two
 * handles (two processes, or two replicas on one database), and that what one handle writes the
 * other reads.
 */
export function tokenStoreContract(name: string, open: OpenStore) {
  describe(`token store contract: ${name}`, () => {
    const s = useOpened(() => open());
    realmCases(s, open);
    clientCases(s);
    userCases(s);
    keyCases(s, open);
    updateCases(s);
    pageCases(s);
    sessionCases(s);
    revocationCases(s);
    browserCases(s);
    describe('failures', () =>
      failureCounterCases(() => {
        const { one, two, now, advance } = s();
        return { one: one.failures, two: two.failures, now, advance, close: async () => undefined };
      }));
  });
}

function realmCases(s: () => Opened<TokenStore>, open: OpenStore) {
  describe('realms', () => {
    it('creates a realm with its key and clients in one step, read back whole from the other handle', async () => {
      const { one, two } = s();
      const realm = realmRecord({ accessTokenLifespan: 60, refreshTokenLifespan: 600 });
      const key = keyRecord(realm.id);
      const login = clientRecord(realm.id, { clientId: 'platform-login', secretHash: null, roles: [], scopes: ['openid'] });
      expect(await one.realms.create(realm, { key, clients: [login] })).toBe(true);
      expect(await two.realms.get(realm.id)).toEqual(realm);
      expect((await two.realms.list()).find((r) => r.id === realm.id)).toEqual(realm);
      expect(await two.keys.get(realm.id, key.kid)).toEqual(key);
      expect(await two.clients.get(realm.id, 'platform-login')).toEqual(login);
      expect(await two.realms.get('no-such-realm')).toBeUndefined();
      expect(await two.realms.getByName(realm.name.toUpperCase())).toEqual(realm);
      expect(await two.realms.getByName('no-such-realm')).toBeUndefined();
    });

    it('refuses a taken id, or a taken name in any case, writing nothing of the refused realm', async () => {
      const { one, two } = s();
      const { realm } = await givenRealm(one);
      for (const taken of [realmRecord({ id: realm.id }), realmRecord({ name: realm.name.toUpperCase() })]) {
        const key = keyRecord(taken.id);
        expect(await two.realms.create(taken, { key, clients: [clientRecord(taken.id, { clientId: 'loser' })] })).toBe(false);
        expect(await one.keys.get(taken.id, key.kid)).toBeUndefined();
        expect(await one.clients.get(taken.id, 'loser')).toBeUndefined();
      }
      expect(await one.realms.get(realm.id)).toEqual(realm);
    });

    it('enables and disables a realm, saying whether it exists', async () => {
      const { one, two } = s();
      const { realm } = await givenRealm(one);
      expect(await two.realms.setEnabled(realm.id, false)).toBe(true);
      expect((await one.realms.get(realm.id))?.enabled).toBe(false);
      expect(await one.realms.setEnabled(realm.id, true)).toBe(true);
      expect((await two.realms.get(realm.id))?.enabled).toBe(true);
      expect(await one.realms.setEnabled('no-such-realm', false)).toBe(false);
    });

    it('lists realms by creation', async () => {
      const { one, two } = s();
      const later = await givenRealm(one, { createdAt: T0 + 2000 });
      const earlier = await givenRealm(two, { createdAt: T0 + 1000 });
      const ids = (await one.realms.list()).map((r) => r.id);
      expect(ids.indexOf(earlier.realm.id)).toBeLessThan(ids.indexOf(later.realm.id));
    });

    it('sets the default realm, seen by the other handle', async () => {
      const { one, two } = s();
      const { realm } = await givenRealm(one);
      await two.realms.setDefaultId(realm.id);
      expect(await one.realms.getDefaultId()).toBe(realm.id);
      const other = await givenRealm(two);
      expect(await one.realms.getDefaultId()).toBe(realm.id);
      await one.realms.setDefaultId(other.realm.id);
      expect(await two.realms.getDefaultId()).toBe(other.realm.id);
    });

    it('makes the first realm of an empty store the default, and only the first', async () => {
      const fresh = await open({ fresh: true });
      try {
        expect(await fresh.one.realms.getDefaultId()).toBeUndefined();
        const first = await givenRealm(fresh.two);
        await givenRealm(fresh.one);
        expect(await fresh.one.realms.getDefaultId()).toBe(first.realm.id);
      } finally {
        await fresh.close();
      }
    });

    it('lets exactly one of 50 parallel creations of one name win, and makes it the default of an empty store', async () => {
      const fresh = await open({ fresh: true });
      try {
        const name = unique('default');
        const realms = Array.from({ length: 50 }, () => realmRecord({ name }));
        const won = await inParallel(fresh, 50, (store, i) =>
          store.realms.create(realms[i], { key: keyRecord(realms[i].id), clients: [] }),
        );
        expect(won.filter(Boolean)).toHaveLength(1);
        const winner = realms[won.indexOf(true)];
        expect(await fresh.two.realms.getDefaultId()).toBe(winner.id);
        expect((await fresh.one.realms.list()).map((r) => r.id)).toEqual([winner.id]);
      } finally {
        await fresh.close();
      }
    });
  });
}

function clientCases(s: () => Opened<TokenStore>) {
  describe('clients', () => {
    it('inserts and reads clients per realm (ids are exact), public ones without a secret', async () => {
      const { one, two } = s();
      const { realm } = await givenRealm(one);
      const other = await givenRealm(one);
      const svc = clientRecord(realm.id, { clientId: 'svc', createdAt: T0 + 1 });
      const pub = clientRecord(realm.id, { clientId: 'app', secretHash: null, createdAt: T0 + 2 });
      expect(await one.clients.insert(svc)).toBe(true);
      expect(await two.clients.insert(pub)).toBe(true);
      expect(await two.clients.get(realm.id, 'svc')).toEqual(svc);
      expect(await one.clients.get(realm.id, 'app')).toEqual(pub);
      expect(await one.clients.get(realm.id, 'SVC')).toBeUndefined();
      expect(await one.clients.get(other.realm.id, 'svc')).toBeUndefined();
      expect(await two.clients.list(realm.id)).toEqual([svc, pub]);
      expect(await two.clients.list(other.realm.id)).toEqual([]);
    });

    it('refuses a client id its realm already has, and allows it in another realm', async () => {
      const { one, two } = s();
      const [a, b] = [await givenRealm(one), await givenRealm(one)];
      const first = clientRecord(a.realm.id, { clientId: 'svc' });
      expect(await one.clients.insert(first)).toBe(true);
      expect(await two.clients.insert(clientRecord(a.realm.id, { clientId: 'svc', secretHash: 'hmac-sha256$other' }))).toBe(false);
      expect(await two.clients.insert(clientRecord(b.realm.id, { clientId: 'svc' }))).toBe(true);
      expect(await one.clients.get(a.realm.id, 'svc')).toEqual(first);
    });

    it("enables and disables a client, and sets a confidential client's secret (never a public one's)", async () => {
      const { one, two } = s();
      const { realm } = await givenRealm(one, {}, (id) => [
        clientRecord(id, { clientId: 'svc' }),
        clientRecord(id, { clientId: 'app', secretHash: null }),
      ]);
      expect(await two.clients.setEnabled(realm.id, 'svc', false)).toBe(true);
      expect((await one.clients.get(realm.id, 'svc'))?.enabled).toBe(false);
      expect(await two.clients.setEnabled(realm.id, 'nobody', false)).toBe(false);
      expect(await one.clients.setSecretHash(realm.id, 'svc', 'hmac-sha256$second')).toBe(true);
      expect((await two.clients.get(realm.id, 'svc'))?.secretHash).toBe('hmac-sha256$second');
      expect(await one.clients.setSecretHash(realm.id, 'app', 'hmac-sha256$x')).toBe(false);
      expect((await two.clients.get(realm.id, 'app'))?.secretHash).toBeNull();
      expect(await one.clients.setSecretHash(realm.id, 'nobody', 'hmac-sha256$x')).toBe(false);
    });

    it('replaces a secret hash only from the expected one: of 50 parallel replacements exactly one wins', async () => {
      const { one, two } = s();
      const { realm } = await givenRealm(one);
      const c = clientRecord(realm.id);
      await one.clients.insert(c);
      const won = await inParallel(s(), 50, (store, i) => store.clients.replaceSecretHash(c.id, 'hmac-sha256$first', `scrypt$new-${i}`));
      expect(won.filter(Boolean)).toHaveLength(1);
      expect((await two.clients.get(realm.id, c.clientId))?.secretHash).toBe(`scrypt$new-${won.indexOf(true)}`);
      expect(await two.clients.replaceSecretHash(c.id, 'hmac-sha256$first', 'scrypt$late')).toBe(false);
    });
  });
}

function userCases(s: () => Opened<TokenStore>) {
  describe('users', () => {
    it('inserts and reads users per realm, by name in any case and by id', async () => {
      const { one, two } = s();
      const [a, b] = [await givenRealm(one), await givenRealm(one)];
      const ann = userRecord(a.realm.id, { username: 'Ann', createdAt: T0 + 1 });
      const bob = userRecord(a.realm.id, { username: 'bob', email: null, emailVerified: true, createdAt: T0 + 2 });
      expect(await one.users.insert(ann)).toBe(true);
      expect(await two.users.insert(bob)).toBe(true);
      expect(await two.users.get(a.realm.id, 'ann')).toEqual(ann);
      expect(await two.users.get(a.realm.id, 'ANN')).toEqual(ann);
      expect(await one.users.getById(bob.id)).toEqual(bob);
      expect(await one.users.get(b.realm.id, 'ann')).toBeUndefined();
      expect(await one.users.getById('no-such-user')).toBeUndefined();
      expect(await two.users.list(a.realm.id)).toEqual([ann, bob]);
      expect(await two.users.list(b.realm.id)).toEqual([]);
    });

    it('refuses a username its realm already has in any case, and allows it in another realm', async () => {
      const { one, two } = s();
      const [a, b] = [await givenRealm(one), await givenRealm(one)];
      const ann = userRecord(a.realm.id, { username: 'ann' });
      expect(await one.users.insert(ann)).toBe(true);
      expect(await two.users.insert(userRecord(a.realm.id, { username: 'ANN' }))).toBe(false);
      expect(await two.users.insert(userRecord(b.realm.id, { username: 'ann' }))).toBe(true);
      expect(await one.users.get(a.realm.id, 'ann')).toEqual(ann);
    });

    it('enables and disables a user by name, and sets a password', async () => {
      const { one, two } = s();
      const { realm } = await givenRealm(one);
      const ann = userRecord(realm.id, { username: 'ann' });
      await one.users.insert(ann);
      expect(await two.users.setEnabled(realm.id, 'ANN', false)).toBe(true);
      expect((await one.users.getById(ann.id))?.enabled).toBe(false);
      expect(await two.users.setEnabled(realm.id, 'nobody', true)).toBe(false);
      expect(await one.users.setPasswordHash(realm.id, 'Ann', 'scrypt$second')).toBe(true);
      expect(await two.users.getById(ann.id)).toMatchObject({ passwordHash: 'scrypt$second' });
      expect(await one.users.setPasswordHash(realm.id, 'nobody', 'scrypt$x')).toBe(false);
    });

    it('replaces a password hash only from the expected one: of 50 parallel replacements exactly one wins', async () => {
      const { one, two } = s();
      const { realm } = await givenRealm(one);
      const ann = userRecord(realm.id);
      await one.users.insert(ann);
      const won = await inParallel(s(), 50, (store, i) => store.users.replacePasswordHash(ann.id, 'scrypt$first', `scrypt$new-${i}`));
      expect(won.filter(Boolean)).toHaveLength(1);
      expect((await two.users.getById(ann.id))?.passwordHash).toBe(`scrypt$new-${won.indexOf(true)}`);
    });
  });
}

function keyCases(s: () => Opened<TokenStore>, open: OpenStore) {
  describe('signing keys', () => {
    it("keeps a realm's keys, the newest active, listed newest first, each found only in its realm", async () => {
      const { one, two } = s();
      const { realm, key: first } = await givenRealm(one);
      const other = await givenRealm(one);
      expect(await two.keys.active(realm.id)).toEqual(first);
      expect(await two.keys.activeKid(realm.id)).toBe(first.kid);
      const second = keyRecord(realm.id, { createdAt: first.createdAt + 1 });
      await two.keys.insert(second);
      expect(await one.keys.active(realm.id)).toEqual(second);
      expect(await one.keys.activeKid(realm.id)).toBe(second.kid);
      expect(await one.keys.list(realm.id)).toEqual([second, first]);
      expect(await one.keys.get(realm.id, first.kid)).toEqual(first);
      expect(await one.keys.get(other.realm.id, first.kid)).toBeUndefined();
      expect(await one.keys.activeKid('no-such-realm')).toBeUndefined();
      expect(await one.keys.active('no-such-realm')).toBeUndefined();
    });
  });

  describe('the secret hash key', () => {
    it('is made once: at least 32 bytes, the same from every handle and every call, even 50 at once on an empty store', async () => {
      const fresh = await open({ fresh: true });
      try {
        const keys = await inParallel(fresh, 50, (store) => store.secretHashKey());
        expect(keys[0].length).toBeGreaterThanOrEqual(32);
        for (const k of [...keys, await fresh.one.secretHashKey(), await fresh.two.secretHashKey()]) expect(k.equals(keys[0])).toBe(true);
      } finally {
        await fresh.close();
      }
    });
  });
}
