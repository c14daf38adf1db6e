import { randomUUID } from 'node:crypto';
import type { TokenStore } from '../../../core/token/ports';
import { givenRealm, inParallel, sessionRecord, T0, type Opened } from './store-fixtures';

/** The sessions part of the token store contract (store-contracts.ts). */
export function sessionCases(s: () => Opened<TokenStore>) {
  describe('sessions', () => {
    it('keeps a written session, read back whole from the other handle', async () => {
      const { one, two } = s();
      const { realm } = await givenRealm(one);
      const session = sessionRecord(realm.id, { userId: randomUUID() });
      await one.sessions.write(session);
      expect(await two.sessions.get(session.id)).toEqual(session);
      expect(await two.sessions.get(randomUUID())).toBeUndefined();
    });

    it('keeps every one of 200 sessions written at once by the two handles (group commits)', async () => {
      const { one, two } = s();
      const { realm } = await givenRealm(one);
      const sessions = Array.from({ length: 200 }, (_, i) => sessionRecord(realm.id, { clientId: `c${i % 7}`, createdAt: T0 + i }));
      await inParallel(s(), 200, (store, i) => store.sessions.write(sessions[i]));
      const read = await Promise.all(sessions.map((x, i) => (i % 2 ? one : two).sessions.get(x.id)));
      expect(read).toEqual(sessions);
    });

    it('rotates a refresh token only from the current one: of 50 parallel rotations exactly one wins', async () => {
      const { one, two } = s();
      const { realm } = await givenRealm(one);
      const session = sessionRecord(realm.id);
      await one.sessions.write(session);
      const next = Array.from({ length: 50 }, () => randomUUID());
      const won = await inParallel(s(), 50, (store, i) =>
        store.sessions.rotate(session.id, session.refreshJti, next[i], session.expiresAt + i + 1),
      );
      expect(won.filter(Boolean)).toHaveLength(1);
      const w = won.indexOf(true);
      expect(await two.sessions.get(session.id)).toEqual({ ...session, refreshJti: next[w], expiresAt: session.expiresAt + w + 1 });
      // The used token cannot rotate again; the current one can.
      expect(await one.sessions.rotate(session.id, session.refreshJti, randomUUID(), session.expiresAt)).toBe(false);
      expect(await two.sessions.rotate(session.id, next[w], 'third', session.expiresAt + 99)).toBe(true);
      expect(await one.sessions.rotate(randomUUID(), 'third', 'x', session.expiresAt)).toBe(false);
    });

    it('revokes a session once (a second revocation keeps the first instant), and a revoked one never rotates', async () => {
      const { one, two, now } = s();
      const { realm } = await givenRealm(one);
      const session = sessionRecord(realm.id);
      await one.sessions.write(session);
      await two.sessions.revoke(session.id, now() + 5, now() + 300_000);
      await one.sessions.revoke(session.id, now() + 9, now() + 300_000);
      expect((await one.sessions.get(session.id))?.revokedAt).toBe(now() + 5);
      expect(await two.sessions.rotate(session.id, session.refreshJti, randomUUID(), session.expiresAt)).toBe(false);
      await one.sessions.revoke(randomUUID(), now(), now() + 300_000);
    });

    it('ends the open sessions of a user, of a client, or of a realm, and only those, counting them', async () => {
      const { one, two, now } = s();
      const [a, b] = [await givenRealm(one), await givenRealm(one)];
      const ann = randomUUID();
      const sessions = {
        annSvc: sessionRecord(a.realm.id, { userId: ann, clientId: 'svc' }),
        annApp: sessionRecord(a.realm.id, { userId: ann, clientId: 'app' }),
        annEnded: sessionRecord(a.realm.id, { userId: ann, clientId: 'svc', revokedAt: now() - 1 }),
        bobSvc: sessionRecord(a.realm.id, { userId: randomUUID(), clientId: 'svc' }),
        svcAlone: sessionRecord(a.realm.id, { clientId: 'svc' }),
        appAlone: sessionRecord(a.realm.id, { clientId: 'app' }),
        elsewhere: sessionRecord(b.realm.id, { userId: ann, clientId: 'svc' }),
      };
      await Promise.all(Object.values(sessions).map((x) => one.sessions.write(x)));
      const open = async () => {
        const read = await Promise.all(
          Object.entries(sessions).map(async ([k, x]) => [k, (await two.sessions.get(x.id))!.revokedAt === null] as const),
        );
        return read.filter(([, isOpen]) => isOpen).map(([k]) => k);
      };

      expect(await two.sessions.revokeAll({ realmId: a.realm.id, userId: ann }, now(), now() + 300_000)).toBe(2);
      expect(await open()).toEqual(['bobSvc', 'svcAlone', 'appAlone', 'elsewhere']);
      expect((await one.sessions.get(sessions.annEnded.id))?.revokedAt).toBe(now() - 1);
      expect(await one.sessions.revokeAll({ realmId: a.realm.id, clientId: 'svc' }, now(), now() + 300_000)).toBe(2);
      expect(await open()).toEqual(['appAlone', 'elsewhere']);
      expect(await two.sessions.revokeAll({ realmId: a.realm.id }, now(), now() + 300_000)).toBe(1);
      expect(await open()).toEqual(['elsewhere']);
      expect(await one.sessions.revokeAll({ realmId: a.realm.id }, now(), now() + 300_000)).toBe(0);
    });

    it('prunes the sessions that expired before an instant, and only those', async () => {
      const { one, two } = s();
      const { realm } = await givenRealm(one);
      // Far in the past, so sessions of other cases sharing the store are not in the way.
      const t = T0 - 10 * 365 * 86_400_000;
      const [expired, edge, live] = [t - 1, t, t + 1].map((expiresAt) => sessionRecord(realm.id, { createdAt: t - 10, expiresAt }));
      await Promise.all([expired, edge, live].map((x) => one.sessions.write(x)));
      expect(await two.sessions.prune(t)).toBe(1);
      expect(await one.sessions.get(expired.id)).toBeUndefined();
      expect(await one.sessions.get(edge.id)).toEqual(edge);
      expect(await one.sessions.get(live.id)).toEqual(live);
    });
  });
}
