import { createHash, randomUUID } from 'node:crypto';
import type { AuthCodeRecord, BrowserSessionRecord, TokenStore } from '../../../core/token/ports';
import { sessionEntry } from '../../../core/token/revocations';
import { clientRecord, givenRealm, inParallel, sessionRecord, T0, unique, type Opened } from './store-fixtures';

const sha256 = (v: string) => createHash('sha256').update(v).digest('hex');

const browserSessionRecord = (realmId: string, o: Partial<BrowserSessionRecord> = {}): BrowserSessionRecord => ({
  id: randomUUID(),
  realmId,
  userId: randomUUID(),
  cookieHash: sha256(randomUUID()),
  authTime: T0 - 5000,
  createdAt: T0,
  expiresAt: T0 + 36_000_000,
  revokedAt: null,
  ...o,
});

const codeRecord = (realmId: string, o: Partial<AuthCodeRecord> = {}): AuthCodeRecord => ({
  codeHash: sha256(randomUUID()),
  realmId,
  clientId: 'app',
  userId: randomUUID(),
  browserSessionId: randomUUID(),
  redirectUri: 'https://app.example.com/callback',
  scope: 'openid profile',
  nonce: 'n-0S6_WzA2Mj',
  codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
  authTime: T0 - 5000,
  createdAt: T0,
  expiresAt: T0 + 60_000,
  usedAt: null,
  sessionId: null,
  ...o,
});

/** An origin nobody else registered (cases may share one database, and the origins list is of every realm). */
const origin = () => `https://${unique('app')}.example.com`;

/** The browser sign-in part of the token store contract (store-contracts.ts): clients' browser settings, browser sessions, codes. */
export function browserCases(s: () => Opened<TokenStore>) {
  describe("clients' browser settings", () => {
    it('keeps them with the client, and sets those given, keeping the others; false for an unknown client', async () => {
      const { one, two } = s();
      const [a, b] = [await givenRealm(one), await givenRealm(one)];
      const app = clientRecord(a.realm.id, {
        clientId: 'app',
        secretHash: null,
        redirectUris: ['https://app.example.com/callback', '/graphiql'],
        postLogoutRedirectUris: ['https://app.example.com/'],
        webOrigins: ['https://app.example.com'],
      });
      const sameIdElsewhere = clientRecord(b.realm.id, { clientId: 'app' });
      expect(await one.clients.insert(app)).toBe(true);
      expect(await one.clients.insert(sameIdElsewhere)).toBe(true);
      expect(await two.clients.get(a.realm.id, 'app')).toEqual(app);

      expect(await two.clients.setBrowserSettings(a.realm.id, 'app', { webOrigins: ['https://other.example.com'] })).toBe(true);
      expect(await one.clients.get(a.realm.id, 'app')).toEqual({ ...app, webOrigins: ['https://other.example.com'], version: 2 });

      const all = { redirectUris: ['https://b.example.com/cb'], postLogoutRedirectUris: [], webOrigins: [] };
      expect(await one.clients.setBrowserSettings(a.realm.id, 'app', all)).toBe(true);
      expect(await two.clients.get(a.realm.id, 'app')).toEqual({ ...app, ...all, version: 3 });
      expect(await two.clients.list(a.realm.id)).toEqual([{ ...app, ...all, version: 3 }]);
      // Nothing given: nothing changes (no new version), and the client is still there.
      expect(await two.clients.setBrowserSettings(a.realm.id, 'app', {})).toBe(true);
      expect(await one.clients.get(a.realm.id, 'app')).toEqual({ ...app, ...all, version: 3 });

      expect(await one.clients.get(b.realm.id, 'app')).toEqual(sameIdElsewhere);
      expect(await two.clients.setBrowserSettings(a.realm.id, 'nobody', { webOrigins: ['https://x.example.com'] })).toBe(false);
      expect(await two.clients.setBrowserSettings(a.realm.id, 'APP', { webOrigins: ['https://x.example.com'] })).toBe(false);
      expect(await one.clients.get(a.realm.id, 'app')).toEqual({ ...app, ...all, version: 3 });
    });

    it('lists the web origins of enabled clients of enabled realms, each once, following their changes', async () => {
      const { one, two } = s();
      const [o1, o2, o3, o4, o5] = [origin(), origin(), origin(), origin(), origin()];
      const a = await givenRealm(one, {}, (id) => [
        clientRecord(id, { clientId: 'one', webOrigins: [o1, o2] }),
        clientRecord(id, { clientId: 'two', secretHash: null, webOrigins: [o2, o3] }),
        clientRecord(id, { clientId: 'off', enabled: false, webOrigins: [o4] }),
      ]);
      const b = await givenRealm(one, { enabled: false }, (id) => [clientRecord(id, { clientId: 'one', webOrigins: [o1, o5] })]);
      const mine = async (store: TokenStore['clients']) => {
        const listed = (await store.webOrigins()).filter((o) => [o1, o2, o3, o4, o5].includes(o));
        expect(new Set(listed).size).toBe(listed.length);
        return listed.sort();
      };
      expect(await mine(two.clients)).toEqual([o1, o2, o3].sort());
      await one.realms.setEnabled(b.realm.id, true);
      expect(await mine(two.clients)).toEqual([o1, o2, o3, o5].sort());
      await one.clients.setEnabled(a.realm.id, 'off', true);
      await one.clients.setBrowserSettings(a.realm.id, 'one', { webOrigins: [] });
      expect(await mine(two.clients)).toEqual([o1, o2, o3, o4, o5].sort());
      await two.clients.setEnabled(b.realm.id, 'one', false);
      await two.realms.setEnabled(a.realm.id, false);
      expect(await mine(one.clients)).toEqual([]);
    });
  });

  describe('browser sessions', () => {
    it('keeps a browser session, read back whole by id and by the hash of its cookie from the other handle', async () => {
      const { one, two } = s();
      const { realm } = await givenRealm(one);
      const b = browserSessionRecord(realm.id);
      await one.browserSessions.insert(b);
      expect(await two.browserSessions.get(b.id)).toEqual(b);
      expect(await two.browserSessions.byCookie(b.cookieHash)).toEqual(b);
      expect(await two.browserSessions.get(randomUUID())).toBeUndefined();
      expect(await two.browserSessions.byCookie(sha256('no such cookie'))).toBeUndefined();
      // A cookie's hash finds one session only.
      // (Compared as a word: a driver's error class need not be this test realm's Error.)
      const again = await two.browserSessions.insert(browserSessionRecord(realm.id, { cookieHash: b.cookieHash })).then(
        () => 'kept',
        () => 'refused',
      );
      expect(again).toBe('refused');
      expect(await one.browserSessions.byCookie(b.cookieHash)).toEqual(b);
    });

    it('lists the open sessions of a realm, or of one of its users, newest first, leaving out the expired and the ended', async () => {
      const { one, two, now } = s();
      const [a, b] = [await givenRealm(one), await givenRealm(one)];
      const [ann, bob] = [randomUUID(), randomUUID()];
      const t = now();
      const x = {
        ann1: browserSessionRecord(a.realm.id, { userId: ann, createdAt: t - 3000, expiresAt: t + 1 }),
        ann2: browserSessionRecord(a.realm.id, { userId: ann, createdAt: t - 1000, expiresAt: t + 3_600_000 }),
        bob: browserSessionRecord(a.realm.id, { userId: bob, createdAt: t - 2000, expiresAt: t + 3_600_000 }),
        annExpired: browserSessionRecord(a.realm.id, { userId: ann, createdAt: t - 4000, expiresAt: t }),
        annEnded: browserSessionRecord(a.realm.id, { userId: ann, createdAt: t - 500, expiresAt: t + 3_600_000, revokedAt: t - 100 }),
        annElsewhere: browserSessionRecord(b.realm.id, { userId: ann, createdAt: t - 600, expiresAt: t + 3_600_000 }),
      };
      await Promise.all(Object.values(x).map((v, i) => (i % 2 ? one : two).browserSessions.insert(v)));
      expect(await two.browserSessions.listOpen(a.realm.id, t)).toEqual([x.ann2, x.bob, x.ann1]);
      expect(await one.browserSessions.listOpen(a.realm.id, t, ann)).toEqual([x.ann2, x.ann1]);
      expect(await one.browserSessions.listOpen(a.realm.id, t, bob)).toEqual([x.bob]);
      expect(await one.browserSessions.listOpen(a.realm.id, t + 1, ann)).toEqual([x.ann2]);
      expect(await two.browserSessions.listOpen(b.realm.id, t)).toEqual([x.annElsewhere]);
      expect(await two.browserSessions.listOpen(a.realm.id, t, randomUUID())).toEqual([]);
    });

    it('ends a browser session with the token sessions started under it, each listed in the feed in the same step; once', async () => {
      const { one, two, now } = s();
      const { realm } = await givenRealm(one);
      const user = randomUUID();
      const [b, other] = [0, 1].map(() => browserSessionRecord(realm.id, { userId: user, expiresAt: now() + 3_600_000 }));
      await Promise.all([one.browserSessions.insert(b), two.browserSessions.insert(other)]);
      const t = {
        app: sessionRecord(realm.id, { userId: user, clientId: 'app', browserSessionId: b.id }),
        console: sessionRecord(realm.id, { userId: user, clientId: 'platform-console', browserSessionId: b.id }),
        ended: sessionRecord(realm.id, { userId: user, clientId: 'app', browserSessionId: b.id, revokedAt: now() - 10 }),
        otherBrowser: sessionRecord(realm.id, { userId: user, clientId: 'app', browserSessionId: other.id }),
        password: sessionRecord(realm.id, { userId: user, clientId: 'app' }),
      };
      await Promise.all(Object.values(t).map((x) => one.sessions.write(x)));
      expect(await two.sessions.get(t.app.id)).toEqual(t.app);

      const before = (await one.revocations.read()).cursor;
      expect(await two.browserSessions.end(b.id, now(), now() + 300_000)).toBe(2);
      expect((await one.browserSessions.get(b.id))?.revokedAt).toBe(now());
      const revokedAt = async (x: { id: string }) => (await one.sessions.get(x.id))!.revokedAt;
      expect(await revokedAt(t.app)).toBe(now());
      expect(await revokedAt(t.console)).toBe(now());
      expect(await revokedAt(t.ended)).toBe(now() - 10);
      expect(await revokedAt(t.otherBrowser)).toBeNull();
      expect(await revokedAt(t.password)).toBeNull();
      const feed = await one.revocations.read(before);
      const mine = (entries: typeof feed.entries) => entries.filter((e) => e.realm === realm.id);
      const bySubject = (x: { subject: string }, y: { subject: string }) => x.subject.localeCompare(y.subject);
      expect(mine(feed.entries).sort(bySubject)).toEqual(
        [sessionEntry(realm.id, t.app.id, now() + 300_000), sessionEntry(realm.id, t.console.id, now() + 300_000)].sort(bySubject),
      );
      expect(await two.browserSessions.listOpen(realm.id, now(), user)).toEqual([other]);

      // Over: a second end changes nothing and lists nothing; so does an unknown one.
      expect(await one.browserSessions.end(b.id, now() + 5, now() + 400_000)).toBe(0);
      expect(await one.browserSessions.end(randomUUID(), now(), now() + 300_000)).toBe(0);
      expect((await two.browserSessions.get(b.id))?.revokedAt).toBe(now());
      expect(mine((await two.revocations.read(feed.cursor)).entries)).toEqual([]);
    });

    it("ends a user's browser sessions with their sessions, and a realm's, but not a client's", async () => {
      const { one, two, now } = s();
      const [a, b] = [await givenRealm(one), await givenRealm(one)];
      const [ann, bob] = [randomUUID(), randomUUID()];
      const x = {
        ann: browserSessionRecord(a.realm.id, { userId: ann }),
        bob: browserSessionRecord(a.realm.id, { userId: bob }),
        annElsewhere: browserSessionRecord(b.realm.id, { userId: ann }),
      };
      await Promise.all(Object.values(x).map((v) => one.browserSessions.insert(v)));
      await one.sessions.write(sessionRecord(a.realm.id, { userId: bob, clientId: 'app', browserSessionId: x.bob.id }));
      const open = async () => {
        const read = await Promise.all(
          Object.entries(x).map(async ([k, v]) => [k, (await two.browserSessions.get(v.id))!.revokedAt] as const),
        );
        return read.filter(([, revokedAt]) => revokedAt === null).map(([k]) => k);
      };

      expect(await two.sessions.revokeAll({ realmId: a.realm.id, userId: ann }, now(), now() + 300_000)).toBe(0);
      expect(await open()).toEqual(['bob', 'annElsewhere']);
      expect((await one.browserSessions.get(x.ann.id))?.revokedAt).toBe(now());
      expect(await one.sessions.revokeAll({ realmId: a.realm.id, clientId: 'app' }, now() + 1, now() + 300_000)).toBe(1);
      expect(await open()).toEqual(['bob', 'annElsewhere']);
      expect(await two.sessions.revokeAll({ realmId: a.realm.id }, now() + 2, now() + 300_000)).toBe(0);
      expect(await open()).toEqual(['annElsewhere']);
      expect((await one.browserSessions.get(x.bob.id))?.revokedAt).toBe(now() + 2);
      expect((await one.browserSessions.get(x.ann.id))?.revokedAt).toBe(now());
    });

    it('prunes the browser sessions that expired before an instant, and only those', async () => {
      const { one, two } = s();
      const { realm } = await givenRealm(one);
      // Far in the past, so sessions of other cases sharing the store are not in the way.
      const t = T0 - 10 * 365 * 86_400_000;
      const [expired, edge, live] = [t - 1, t, t + 1].map((expiresAt) =>
        browserSessionRecord(realm.id, { authTime: t - 20, createdAt: t - 10, expiresAt }),
      );
      await Promise.all([expired, edge, live].map((x) => one.browserSessions.insert(x)));
      expect(await two.browserSessions.prune(t)).toBe(1);
      expect(await one.browserSessions.get(expired.id)).toBeUndefined();
      expect(await one.browserSessions.get(edge.id)).toEqual(edge);
      expect(await one.browserSessions.byCookie(live.cookieHash)).toEqual(live);
    });
  });

  describe('authorization codes', () => {
    it('answers a code whole at its first use, then as first used (with the session it started) at every later one', async () => {
      const { one, two, now } = s();
      const { realm } = await givenRealm(one);
      const code = codeRecord(realm.id);
      const confidential = codeRecord(realm.id, { clientId: 'svc', nonce: null, codeChallenge: null });
      await one.codes.insert(code);
      await two.codes.insert(confidential);
      expect(await two.codes.consume(code.codeHash, now())).toEqual(code);
      const session = randomUUID();
      expect(await one.codes.started(code.codeHash, session)).toBe(true);
      expect(await one.codes.consume(code.codeHash, now() + 5)).toEqual({ ...code, usedAt: now(), sessionId: session });
      expect(await two.codes.consume(code.codeHash, now() + 9)).toEqual({ ...code, usedAt: now(), sessionId: session });
      expect(await one.codes.consume(confidential.codeHash, now() + 1)).toEqual(confidential);
      expect(await two.codes.consume(sha256('no such code'), now())).toBeUndefined();
      expect(await two.codes.started(sha256('no such code'), randomUUID())).toBe(false);
    });

    it('lets exactly one of 50 parallel uses of a code be its first, the others seeing when it was', async () => {
      const { one, now } = s();
      const { realm } = await givenRealm(one);
      const code = codeRecord(realm.id);
      await one.codes.insert(code);
      const used = await inParallel(s(), 50, (store, i) => store.codes.consume(code.codeHash, now() + i));
      const first = used.findIndex((c) => c?.usedAt === null);
      expect(used.filter((c) => c?.usedAt === null)).toHaveLength(1);
      expect(used[first]).toEqual(code);
      for (const [i, c] of used.entries()) if (i !== first) expect(c).toEqual({ ...code, usedAt: now() + first });
    });

    it('says a started session is to be ended when the code was used again before it was recorded', async () => {
      const { one, two, now } = s();
      const { realm } = await givenRealm(one);
      const code = codeRecord(realm.id);
      await two.codes.insert(code);
      expect((await one.codes.consume(code.codeHash, now()))?.usedAt).toBeNull();
      expect((await two.codes.consume(code.codeHash, now() + 1))?.usedAt).toBe(now());
      const session = randomUUID();
      expect(await one.codes.started(code.codeHash, session)).toBe(false);
      // A later use still learns of the session, to end it.
      expect(await two.codes.consume(code.codeHash, now() + 2)).toEqual({ ...code, usedAt: now(), sessionId: session });
    });

    it('prunes the codes that expired before an instant, and only those', async () => {
      const { one, two } = s();
      const { realm } = await givenRealm(one);
      const t = T0 - 10 * 365 * 86_400_000;
      const [expired, edge, live] = [t - 1, t, t + 1].map((expiresAt) =>
        codeRecord(realm.id, { authTime: t - 20, createdAt: t - 10, expiresAt }),
      );
      await Promise.all([expired, edge, live].map((x) => one.codes.insert(x)));
      expect(await two.codes.prune(t)).toBe(1);
      expect(await one.codes.consume(expired.codeHash, t)).toBeUndefined();
      expect(await one.codes.consume(edge.codeHash, t)).toEqual(edge);
      expect(await one.codes.consume(live.codeHash, t)).toEqual(live);
    });
  });
}
