import type { TokenStore } from '../../../core/token/ports';
import { clientRecord, givenRealm, inParallel, unique, userRecord, type Opened } from './store-fixtures';

/** How many rounds of two updates from one version race each other. */
const ROUNDS = 20;

/**
 * The versions and compare-and-set updates of realms, clients and users (the admin API's ETag and
 * If-Match), part of the token store contract (store-contracts.ts).
 */
export function updateCases(s: () => Opened<TokenStore>) {
  describe('versions', () => {
    it('start at 1 and rise by one on every setter that changes a row, not on one that changes nothing', async () => {
      const { one, two } = s();
      const { realm } = await givenRealm(one, {}, (id) => [
        clientRecord(id, { clientId: 'svc' }),
        clientRecord(id, { clientId: 'app', secretHash: null }),
      ]);
      const ann = userRecord(realm.id, { username: 'ann' });
      await one.users.insert(ann);
      const versions = async () => [
        (await two.realms.get(realm.id))?.version,
        (await two.clients.get(realm.id, 'svc'))?.version,
        (await two.clients.get(realm.id, 'app'))?.version,
        (await two.users.getById(ann.id))?.version,
      ];
      expect(await versions()).toEqual([1, 1, 1, 1]);
      const svc = (await one.clients.get(realm.id, 'svc'))!;

      await one.realms.setEnabled(realm.id, false);
      await one.clients.setEnabled(realm.id, 'svc', false);
      await one.clients.setSecretHash(realm.id, 'svc', 'hmac-sha256$second');
      await one.clients.replaceSecretHash(svc.id, 'hmac-sha256$second', 'scrypt$third');
      await one.clients.setBrowserSettings(realm.id, 'app', { redirectUris: ['https://app.example/cb'] });
      await one.users.setEnabled(realm.id, 'ANN', false);
      await one.users.setPasswordHash(realm.id, 'ann', 'scrypt$second');
      await one.users.replacePasswordHash(ann.id, 'scrypt$second', 'scrypt$third');
      expect(await versions()).toEqual([2, 4, 2, 4]);

      // Refused or unmatched: nothing changed, no new version.
      await one.clients.setSecretHash(realm.id, 'app', 'hmac-sha256$x');
      await one.clients.replaceSecretHash(svc.id, 'hmac-sha256$stale', 'scrypt$x');
      await one.users.replacePasswordHash(ann.id, 'scrypt$stale', 'scrypt$x');
      expect(await versions()).toEqual([2, 4, 2, 4]);
    });
  });

  describe('updates', () => {
    it("change a realm's fields given, answer it as written with the next version, seen by the other handle", async () => {
      const { one, two } = s();
      const { realm } = await givenRealm(one);
      const name = unique('renamed');
      const patch = { name, enabled: false, accessTokenLifespan: 120, refreshTokenLifespan: 240 };
      const done = await two.realms.update(realm.id, patch, 1);
      const written = { ...realm, ...patch, version: 2 };
      expect(done).toEqual({ status: 'ok', record: written });
      expect(await one.realms.get(realm.id)).toEqual(written);
      expect(await one.realms.getByName(name.toUpperCase())).toEqual(written);
      // Without a version: the last writer wins; undefined fields are not given.
      expect(await one.realms.update(realm.id, { enabled: true, name: undefined })).toEqual({
        status: 'ok',
        record: { ...written, enabled: true, version: 3 },
      });
    });

    it("change a client's fields given, found only in its own realm", async () => {
      const { one, two } = s();
      const { realm } = await givenRealm(one);
      const other = await givenRealm(one);
      const svc = clientRecord(realm.id, { clientId: 'svc' });
      await one.clients.insert(svc);
      const patch = {
        enabled: false,
        roles: ['chat:write'],
        scopes: ['openid', 'chat'],
        tenantId: 'tenant-b',
        redirectUris: ['https://app.example/cb'],
        postLogoutRedirectUris: ['https://app.example/bye'],
        webOrigins: ['https://app.example'],
      };
      const written = { ...svc, ...patch, version: 2 };
      expect(await two.clients.update(realm.id, 'svc', patch, 1)).toEqual({ status: 'ok', record: written });
      expect(await one.clients.get(realm.id, 'svc')).toEqual(written);
      expect(await one.clients.update(realm.id, 'svc', { roles: [] })).toEqual({
        status: 'ok',
        record: { ...written, roles: [], version: 3 },
      });
      expect(await one.clients.update(other.realm.id, 'svc', { enabled: true })).toEqual({ status: 'missing' });
      expect(await one.clients.update(realm.id, 'SVC', { enabled: true })).toEqual({ status: 'missing' });
      expect((await two.clients.get(realm.id, 'svc'))?.version).toBe(3);
    });

    it("change a user's fields given (an email may be cleared), found by name in any case, only in its own realm", async () => {
      const { one, two } = s();
      const { realm } = await givenRealm(one);
      const other = await givenRealm(one);
      const ann = userRecord(realm.id, { username: 'Ann' });
      await one.users.insert(ann);
      const patch = { enabled: false, roles: ['platform-admin'], email: null, emailVerified: true, tenantId: 'tenant-b' };
      const written = { ...ann, ...patch, version: 2 };
      expect(await two.users.update(realm.id, 'ANN', patch, 1)).toEqual({ status: 'ok', record: written });
      expect(await one.users.getById(ann.id)).toEqual(written);
      expect(await one.users.update(realm.id, 'ann', { email: 'ann@example.org' })).toEqual({
        status: 'ok',
        record: { ...written, email: 'ann@example.org', version: 3 },
      });
      expect(await one.users.update(other.realm.id, 'ann', { enabled: true })).toEqual({ status: 'missing' });
    });

    it('refuse a stale version with the current one, writing nothing', async () => {
      const { one, two } = s();
      const { realm } = await givenRealm(one, {}, (id) => [clientRecord(id, { clientId: 'svc' })]);
      const ann = userRecord(realm.id);
      await one.users.insert(ann);
      await one.realms.setEnabled(realm.id, true);
      await one.clients.setEnabled(realm.id, 'svc', true);
      await one.users.setEnabled(realm.id, ann.username, true);
      const [r, c, u] = [await one.realms.get(realm.id), await one.clients.get(realm.id, 'svc'), await one.users.getById(ann.id)];

      expect(await two.realms.update(realm.id, { name: unique('lost'), enabled: false }, 1)).toEqual({ status: 'stale', version: 2 });
      expect(await two.clients.update(realm.id, 'svc', { roles: ['lost'] }, 1)).toEqual({ status: 'stale', version: 2 });
      expect(await two.users.update(realm.id, ann.username, { roles: ['lost'] }, 1)).toEqual({ status: 'stale', version: 2 });
      // A version no row can have (If-Match is the caller's): stale as well, never an error of the engine.
      for (const odd of [0, -1, 1.5, 2 ** 31, Number.MAX_SAFE_INTEGER, NaN])
        expect(await two.realms.update(realm.id, { enabled: false }, odd)).toEqual({ status: 'stale', version: 2 });
      expect(await two.realms.update('no-such-realm', { enabled: false }, 2 ** 40)).toEqual({ status: 'missing' });
      expect(await one.realms.get(realm.id)).toEqual(r);
      expect(await one.clients.get(realm.id, 'svc')).toEqual(c);
      expect(await one.users.getById(ann.id)).toEqual(u);
    });

    it('answer missing for a row that is not there, with a version or without, with a patch or without', async () => {
      const { one } = s();
      const { realm } = await givenRealm(one);
      for (const ifVersion of [undefined, 1]) {
        for (const patch of [{ enabled: false }, {}]) {
          expect(await one.realms.update('no-such-realm', patch, ifVersion)).toEqual({ status: 'missing' });
          expect(await one.clients.update(realm.id, 'nobody', patch, ifVersion)).toEqual({ status: 'missing' });
          expect(await one.users.update(realm.id, 'nobody', patch, ifVersion)).toEqual({ status: 'missing' });
          expect(await one.clients.update('no-such-realm', 'nobody', patch, ifVersion)).toEqual({ status: 'missing' });
        }
      }
    });

    it('change nothing for an empty patch: the record as it is, or stale for an old version', async () => {
      const { one, two } = s();
      const { realm } = await givenRealm(one);
      expect(await two.realms.update(realm.id, {})).toEqual({ status: 'ok', record: realm });
      expect(await two.realms.update(realm.id, {}, 1)).toEqual({ status: 'ok', record: realm });
      await one.realms.setEnabled(realm.id, true);
      expect(await two.realms.update(realm.id, {}, 1)).toEqual({ status: 'stale', version: 2 });
      expect((await one.realms.get(realm.id))?.version).toBe(2);
    });

    it('refuse a realm name another realm has, in any case, writing nothing; its own name in another case is fine', async () => {
      const { one, two } = s();
      const { realm } = await givenRealm(one);
      const taken = await givenRealm(one);
      expect(await two.realms.update(realm.id, { name: taken.realm.name.toUpperCase(), enabled: false }, 1)).toEqual({ status: 'taken' });
      expect(await two.realms.update(realm.id, { name: taken.realm.name })).toEqual({ status: 'taken' });
      expect(await one.realms.get(realm.id)).toEqual(realm);
      const own = realm.name.toUpperCase();
      expect(await two.realms.update(realm.id, { name: own }, 1)).toEqual({ status: 'ok', record: { ...realm, name: own, version: 2 } });
    });

    it(`let exactly one of two updates from one version win, ${ROUNDS} times over, for realms, clients and users`, async () => {
      const { one } = s();
      const { realm } = await givenRealm(one, {}, (id) => [clientRecord(id, { clientId: 'svc' })]);
      const ann = userRecord(realm.id, { username: 'ann' });
      await one.users.insert(ann);
      const race = async (update: (store: TokenStore, i: number, version: number) => Promise<{ status: string }>, version: number) => {
        const outcomes = await inParallel(s(), 2, (store, i) => update(store, i, version));
        expect(outcomes.map((o) => o.status).sort()).toEqual(['ok', 'stale']);
        expect(outcomes.find((o) => o.status === 'stale')).toEqual({ status: 'stale', version: version + 1 });
        return outcomes.findIndex((o) => o.status === 'ok');
      };
      for (let round = 0; round < ROUNDS; round++) {
        const version = round + 1;
        const r = await race((store, i, v) => store.realms.update(realm.id, { accessTokenLifespan: 100 + i }, v), version);
        const c = await race((store, i, v) => store.clients.update(realm.id, 'svc', { roles: [`won-${i}`] }, v), version);
        const u = await race((store, i, v) => store.users.update(realm.id, 'ann', { roles: [`won-${i}`] }, v), version);
        // What is kept is the winner's change, at the next version.
        expect(await one.realms.get(realm.id)).toMatchObject({ accessTokenLifespan: 100 + r, version: version + 1 });
        expect(await one.clients.get(realm.id, 'svc')).toMatchObject({ roles: [`won-${c}`], version: version + 1 });
        expect(await one.users.getById(ann.id)).toMatchObject({ roles: [`won-${u}`], version: version + 1 });
      }
    });
  });
}
