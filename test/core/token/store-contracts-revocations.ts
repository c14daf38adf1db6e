import { randomUUID } from 'node:crypto';
import { hashedSubject, type Revocation } from '../../../core/shared/auth/revocations';
import { uuidv7 } from '../../../core/shared/ids';
import type { TokenStore } from '../../../core/token/ports';
import { eventually } from '../../shared/replicas';
import { givenRealm, inParallel, sessionRecord, T0, type Opened } from './store-fixtures';

/** Every entry of the feed as one reader holding no cursor sees it, those of `realm` only (cases share a store). */
const entriesOf = async (store: TokenStore, realm: string) => (await store.revocations.read()).entries.filter((e) => e.realm === realm);

/** The revoked-sessions feed part of the token store contract (store-contracts.ts). */
export function revocationCases(s: () => Opened<TokenStore>) {
  describe('revoked-sessions feed', () => {
    it('lists a revoked session once, for the other handle to read, in the same step as the revocation', async () => {
      const { one, two, now } = s();
      const { realm } = await givenRealm(one);
      const session = sessionRecord(realm.id);
      await one.sessions.write(session);
      await two.sessions.revoke(session.id, now(), now() + 300_000);
      await one.sessions.revoke(session.id, now() + 1, now() + 400_000);
      expect(await entriesOf(one, realm.id)).toEqual([
        { realm: realm.id, kind: 'session', subject: session.id, upTo: 0, until: now() + 300_000 },
      ]);
      // An unknown session lists nothing.
      await one.sessions.revoke(randomUUID(), now(), now() + 300_000);
      expect(await entriesOf(two, realm.id)).toHaveLength(1);
    });

    it('lists one entry per user, client or realm whose sessions end, covering the newest of them, hashed; none when none was open', async () => {
      const { one, two, now } = s();
      const { realm } = await givenRealm(one);
      const ann = randomUUID();
      const newest = uuidv7(now() + 60_000);
      await one.sessions.write(sessionRecord(realm.id, { userId: ann, id: uuidv7(now() - 1000) }));
      await one.sessions.write(sessionRecord(realm.id, { userId: ann, id: newest }));
      await one.sessions.write(sessionRecord(realm.id, { clientId: 'svc' }));
      expect(await two.sessions.revokeAll({ realmId: realm.id, userId: ann }, now(), now() + 300_000)).toBe(2);
      expect(await two.sessions.revokeAll({ realmId: realm.id, userId: ann }, now(), now() + 300_000)).toBe(0);
      expect(await one.sessions.revokeAll({ realmId: realm.id, clientId: 'svc' }, now(), now() + 300_000)).toBe(1);
      expect(await one.sessions.revokeAll({ realmId: realm.id }, now(), now() + 300_000)).toBe(0);
      expect(await entriesOf(two, realm.id)).toEqual([
        { realm: realm.id, kind: 'user', subject: hashedSubject(ann), upTo: now() + 60_000, until: now() + 300_000 },
        // Sessions with ids of another kind (made before ids told their start) leave the revocation's instant.
        { realm: realm.id, kind: 'client', subject: hashedSubject('svc'), upTo: now(), until: now() + 300_000 },
      ]);
      await one.sessions.write(sessionRecord(realm.id, { clientId: 'app' }));
      expect(await two.sessions.revokeAll({ realmId: realm.id }, now(), now() + 300_000)).toBe(1);
      expect((await entriesOf(one, realm.id)).at(-1)).toEqual({
        realm: realm.id,
        kind: 'realm',
        subject: realm.id,
        upTo: now(),
        until: now() + 300_000,
      });
    });

    it("reads after a cursor only what is new, and everything again for another feed's cursor or one past its end", async () => {
      const { one, two, now } = s();
      const { realm } = await givenRealm(one);
      const first = await one.revocations.read();
      expect(first.full).toBe(true);
      expect(first.cursor.feed).toMatch(/^[0-9a-f]{32}$/);
      expect(await two.revocations.read(first.cursor)).toEqual({ cursor: first.cursor, entries: [], full: false });
      const sessions = [sessionRecord(realm.id), sessionRecord(realm.id)];
      for (const x of sessions) {
        await one.sessions.write(x);
        await two.sessions.revoke(x.id, now(), now() + 300_000);
      }
      const next = await one.revocations.read(first.cursor);
      expect(next.full).toBe(false);
      expect(next.entries.map((e) => e.subject)).toEqual(sessions.map((x) => x.id));
      expect(next.cursor).toEqual({ feed: first.cursor.feed, after: expect.any(Number) });
      expect(next.cursor.after).toBeGreaterThan(first.cursor.after);
      expect((await two.revocations.read(next.cursor)).entries).toEqual([]);
      for (const cursor of [
        { feed: 'ab'.repeat(16), after: next.cursor.after },
        { ...next.cursor, after: next.cursor.after + 1_000_000 },
      ]) {
        const again = await two.revocations.read(cursor);
        expect(again.full).toBe(true);
        expect(again.entries.filter((e) => e.realm === realm.id)).toHaveLength(2);
        expect(again.cursor).toEqual(next.cursor);
      }
    });

    it('numbers the entries of 40 revocations made at once on both handles so that a reader following along misses none', async () => {
      const { one, two, now } = s();
      const { realm } = await givenRealm(one);
      const sessions = Array.from({ length: 40 }, () => sessionRecord(realm.id));
      await Promise.all(sessions.map((x) => one.sessions.write(x)));
      let cursor = (await two.revocations.read()).cursor;
      const seen: Revocation[] = [];
      let writing = true;
      const reader = (async () => {
        while (writing) {
          const batch = await two.revocations.read(cursor);
          seen.push(...batch.entries);
          cursor = batch.cursor;
          await new Promise((r) => setImmediate(r));
        }
      })();
      await inParallel(s(), 40, (store, i) => store.sessions.revoke(sessions[i].id, now(), now() + 300_000));
      writing = false;
      await reader;
      seen.push(...(await two.revocations.read(cursor)).entries);
      expect(
        seen
          .filter((e) => e.realm === realm.id)
          .map((e) => e.subject)
          .sort(),
      ).toEqual(sessions.map((x) => x.id).sort());
    });

    it('tells a follower on the other handle that entries were added', async () => {
      const { one, two, now } = s();
      const { realm } = await givenRealm(one);
      let told = 0;
      const stop = two.revocations.follow(() => told++);
      try {
        // A listener may take a moment to be up; the feed's poll covers that moment.
        const session = sessionRecord(realm.id);
        await one.sessions.write(session);
        const before = told;
        await one.sessions.revoke(session.id, now(), now() + 300_000);
        await eventually(async () => told > before, 10_000);
      } finally {
        stop();
      }
    });

    it('prunes the entries kept until before an instant, and only those', async () => {
      const { one, two } = s();
      const { realm } = await givenRealm(one);
      const t = T0 - 10 * 365 * 86_400_000;
      const sessions = [sessionRecord(realm.id), sessionRecord(realm.id), sessionRecord(realm.id)];
      for (const [i, x] of sessions.entries()) {
        await one.sessions.write(x);
        await one.sessions.revoke(x.id, t - 100, t - 1 + i);
      }
      expect(await two.revocations.prune(t)).toBe(1);
      expect((await entriesOf(one, realm.id)).map((e) => e.until)).toEqual([t, t + 1]);
    });
  });
}
