import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TokenStore } from '../../../core/token/ports';
import { withRealmCache } from '../../../core/token/realm-cache';
import { sqliteTokenStore } from '../../../core/token/sqlite';
import { givenRealm } from './store-fixtures';

// Two handles on one token.db stand for two replicas on one database: `other` writes, `cached` reads.
const dir = mkdtempSync(join(tmpdir(), 'realm-cache-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

function replicas() {
  const file = join(dir, `token-${n++}.db`);
  const [store, other] = [sqliteTokenStore(file), sqliteTokenStore(file)];
  let now = 0;
  const cached = withRealmCache(store, { ttlMs: 500, now: () => now });
  return { cached, other, wait: (ms: number) => void (now += ms), close: async () => (await store.close(), await other.close()) };
}

describe('the realm cache of a shared token store', () => {
  it('sees a realm disabled on another replica once its time is up, not before', async () => {
    const r = replicas();
    const { realm } = await givenRealm(r.other);
    expect((await r.cached.realms.get(realm.id))?.enabled).toBe(true);
    await r.other.realms.setEnabled(realm.id, false);
    r.wait(499);
    expect((await r.cached.realms.get(realm.id))?.enabled).toBe(true);
    r.wait(1);
    expect((await r.cached.realms.get(realm.id))?.enabled).toBe(false);
    await r.close();
  });

  it("sees another replica's new default realm within its time", async () => {
    const r = replicas();
    const { realm: first } = await givenRealm(r.other);
    const { realm: second } = await givenRealm(r.other);
    expect(await r.cached.realms.getDefaultId()).toBe(first.id);
    await r.other.realms.setDefaultId(second.id);
    r.wait(500);
    expect(await r.cached.realms.getDefaultId()).toBe(second.id);
    await r.close();
  });

  it('sees its own writes at once', async () => {
    const r = replicas();
    const { realm: first } = await givenRealm(r.cached);
    const { realm: second } = await givenRealm(r.cached);
    expect(await r.cached.realms.getDefaultId()).toBe(first.id);
    expect((await r.cached.realms.get(first.id))?.enabled).toBe(true);
    expect(await r.cached.realms.setEnabled(first.id, false)).toBe(true);
    expect((await r.cached.realms.get(first.id))?.enabled).toBe(false);
    expect((await r.cached.realms.update(first.id, { name: 'renamed' })).status).toBe('ok');
    expect((await r.cached.realms.get(first.id))?.name).toBe('renamed');
    await r.cached.realms.setDefaultId(second.id);
    expect(await r.cached.realms.getDefaultId()).toBe(second.id);
    await r.close();
  });

  it('keeps no unknown realm: one created meanwhile on another replica is found at once', async () => {
    const r = replicas();
    expect(await r.cached.realms.get('not-yet')).toBeUndefined();
    await givenRealm(r.other, { id: 'not-yet', name: 'not-yet' });
    expect((await r.cached.realms.get('not-yet'))?.id).toBe('not-yet');
    await r.close();
  });

  it('keeps no failed read: the next call asks the store again', async () => {
    const r = replicas();
    const { realm } = await givenRealm(r.other);
    let fail = true;
    const flaky: TokenStore = {
      ...r.other,
      realms: { ...r.other.realms, get: (id) => (fail ? Promise.reject(new Error('connection lost')) : r.other.realms.get(id)) },
    };
    const cached = withRealmCache(flaky, { ttlMs: 500, now: () => 0 });
    await expect(cached.realms.get(realm.id)).rejects.toThrow('connection lost');
    fail = false;
    expect((await cached.realms.get(realm.id))?.id).toBe(realm.id);
    await r.close();
  });
});
