import { randomUUID } from 'node:crypto';
import { hashOfKey, newKeyText, prefixOf, type ApiKey } from '../../../core/models/keys/api-key';
import type { KeyStore } from '../../../core/models/ports';
import type { Opened } from './store-contracts';

/** A key record as the domain hands it to the store, with the hash of its text (names unique per case, so a shared database does too). */
export function keyRecord(tenant: string, at: number, over: Partial<ApiKey> = {}): { key: ApiKey; hash: string } {
  const text = newKeyText();
  return {
    hash: hashOfKey(text),
    key: {
      id: randomUUID(),
      prefix: prefixOf(text),
      name: `key-${randomUUID()}`,
      tenant,
      models: null,
      requestsPerMinute: null,
      tokenBudget: null,
      createdAt: new Date(at),
      revokedAt: null,
      expiresAt: null,
      ...over,
    },
  };
}

export function keyStoreContract(name: string, open: () => Promise<Opened<KeyStore>>) {
  describe(`KeyStore contract: ${name}`, () => {
    let s: Opened<KeyStore>;
    let tenant: (name: string) => string;
    beforeEach(async () => {
      s = await open();
      const run = randomUUID();
      tenant = (n) => `${n}-${run}`;
    });
    afterEach(() => s.close());

    it('finds a created key by the hash of its text, from any handle, as it was created', async () => {
      const a = keyRecord(tenant('a'), s.now(), { models: ['m1', 'm2'], requestsPerMinute: 60, tokenBudget: 1000 });
      const b = keyRecord(tenant('a'), s.now() + 1, { models: [] });
      await s.one.create(a.key, a.hash);
      await s.two.create(b.key, b.hash);
      expect(await s.two.findLive(a.hash)).toEqual(a.key);
      expect(await s.one.findLive(b.hash)).toEqual(b.key);
    });

    it('finds nothing for an unknown hash, and revokes nothing for an unknown id or prefix', async () => {
      const a = keyRecord(tenant('a'), s.now());
      await s.one.create(a.key, a.hash);
      expect(await s.one.findLive(hashOfKey(newKeyText()))).toBeUndefined();
      expect(await s.two.revoke(randomUUID(), s.now())).toBeUndefined();
      expect(await s.two.revoke(prefixOf(newKeyText()), s.now())).toBeUndefined();
      expect(await s.one.findLive(a.hash)).toEqual(a.key);
    });

    it('refuses a second key under a hash already kept', async () => {
      const a = keyRecord(tenant('a'), s.now());
      await s.one.create(a.key, a.hash);
      expect(
        await s.two.create(keyRecord(tenant('a'), s.now()).key, a.hash).then(
          () => 'kept',
          () => 'refused',
        ),
      ).toBe('refused');
      expect(await s.one.findLive(a.hash)).toEqual(a.key);
    });

    it('never finds a revoked key again; revoking it twice keeps the first time', async () => {
      const a = keyRecord(tenant('a'), s.now());
      const other = keyRecord(tenant('a'), s.now());
      await s.one.create(a.key, a.hash);
      await s.one.create(other.key, other.hash);
      const at = s.now() + 5000;
      expect(await s.two.revoke(a.key.id, at)).toEqual({ ...a.key, revokedAt: new Date(at) });
      expect(await s.one.findLive(a.hash)).toBeUndefined();
      expect(await s.two.findLive(a.hash)).toBeUndefined();
      expect(await s.one.revoke(a.key.id, at + 5000)).toEqual({ ...a.key, revokedAt: new Date(at) });
      expect(await s.two.findLive(other.hash)).toEqual(other.key);
    });

    it('revokes by the listing prefix, that key only', async () => {
      const a = keyRecord(tenant('a'), s.now());
      const b = keyRecord(tenant('a'), s.now());
      await s.one.create(a.key, a.hash);
      await s.one.create(b.key, b.hash);
      const at = s.now() + 1;
      expect(await s.two.revoke(a.key.prefix, at)).toEqual({ ...a.key, revokedAt: new Date(at) });
      expect(await s.one.findLive(a.hash)).toBeUndefined();
      expect(await s.one.findLive(b.hash)).toEqual(b.key);
    });

    it("lists a tenant's keys only, revoked ones too, oldest first; every tenant's when none is named", async () => {
      const t0 = s.now();
      const [a2, b1, a1] = [keyRecord(tenant('a'), t0 + 2), keyRecord(tenant('b'), t0 + 1), keyRecord(tenant('a'), t0)];
      for (const k of [a2, b1, a1]) await s.one.create(k.key, k.hash);
      const revoked = await s.one.revoke(a1.key.id, t0 + 3);
      expect(await s.two.list(tenant('a'))).toEqual([revoked, a2.key]);
      expect(await s.two.list(tenant('b'))).toEqual([b1.key]);
      expect(await s.two.list(tenant('c'))).toEqual([]);
      const all = await s.one.list();
      expect(all).toEqual(expect.arrayContaining([revoked, a2.key, b1.key]));
      const mine = all.filter((k) => [a1, a2, b1].some((r) => r.key.id === k.id)).map((k) => k.id);
      expect(mine).toEqual([a1.key.id, b1.key.id, a2.key.id]);
    });

    it('keeps an expiry as given; finds a key by hash or id whether revoked or not', async () => {
      const a = keyRecord(tenant('a'), s.now(), { expiresAt: new Date(s.now() + 60_000) });
      await s.one.create(a.key, a.hash);
      expect(await s.two.findLive(a.hash)).toEqual(a.key);
      expect(await s.two.get(a.key.id)).toEqual(a.key);
      const revoked = await s.one.revoke(a.key.id, s.now() + 1);
      expect(await s.two.find(a.hash)).toEqual(revoked);
      expect(await s.two.get(a.key.id)).toEqual(revoked);
      expect(await s.two.find(hashOfKey(newKeyText()))).toBeUndefined();
      expect(await s.two.get(randomUUID())).toBeUndefined();
    });

    it('sets and removes a key budget in place, seen from any handle; nothing else of the key changes', async () => {
      const a = keyRecord(tenant('a'), s.now(), { models: ['m'], requestsPerMinute: 5 });
      await s.one.create(a.key, a.hash);
      const budget = { usd: 2.5, period: 'daily' as const, warnAt: 0.5 };
      expect(await s.one.setBudget(a.key.id, budget)).toEqual({ ...a.key, budget });
      expect(await s.two.findLive(a.hash)).toEqual({ ...a.key, budget });
      expect(await s.one.setBudget(a.key.id, null)).toEqual(a.key);
      expect(await s.two.get(a.key.id)).toEqual(a.key);
      expect(await s.one.setBudget(randomUUID(), budget)).toBeUndefined();
    });

    it('rotates in one step: the old key revoked, the new one kept; of two rotations at once, one makes a key', async () => {
      const old = keyRecord(tenant('a'), s.now(), { models: ['m'], requestsPerMinute: 5 });
      await s.one.create(old.key, old.hash);
      const [x, y] = [keyRecord(tenant('a'), s.now() + 1), keyRecord(tenant('a'), s.now() + 1)];
      const at = s.now() + 2;
      const [rx, ry] = await Promise.all([s.one.rotate(old.key.id, x.key, x.hash, at), s.two.rotate(old.key.id, y.key, y.hash, at)]);
      expect([rx, ry].filter(Boolean)).toEqual([{ ...old.key, revokedAt: new Date(at) }]);
      const kept = rx ? x : y;
      const lost = rx ? y : x;
      expect(await s.two.findLive(old.hash)).toBeUndefined();
      expect(await s.one.findLive(kept.hash)).toEqual(kept.key);
      expect(await s.one.find(lost.hash)).toBeUndefined();
      expect(await s.one.rotate(randomUUID(), lost.key, lost.hash, at)).toBeUndefined();
      expect(await s.one.find(lost.hash)).toBeUndefined();
    });
  });
}
