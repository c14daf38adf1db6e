import { randomUUID } from 'node:crypto';
import { endWhenRevoked } from '../../../core/shared/auth/end-when-revoked';
import { followRevocations, type FeedBatch, type FeedCursor, type RevocationFeed } from '../../../core/shared/auth/revocation-feed';
import {
  createRevocationList,
  hashedSubject,
  sessionStartedAt,
  type Revocation,
  type SessionOf,
} from '../../../core/shared/auth/revocations';
import { uuidv7 } from '../../../core/shared/ids';
import { testClock } from '../../shared/helpers';

const REALM = randomUUID();
const T = Date.UTC(2026, 0, 1);

const session = (o: Partial<SessionOf> = {}): SessionOf => ({
  realm: REALM,
  sessionId: uuidv7(T - 1000),
  subject: randomUUID(),
  clientId: 'app',
  ...o,
});
const ended = (s: SessionOf, until = T + 300_000): Revocation => ({
  realm: s.realm,
  kind: 'session',
  subject: s.sessionId,
  upTo: 0,
  until,
});

describe('the revoked-sessions list', () => {
  const make = () => {
    const clock = testClock(T);
    return { clock, list: createRevocationList({ clock, toleranceMs: 30_000 }) };
  };

  it('refuses a listed session and no other', () => {
    const { list } = make();
    const [a, b] = [session(), session()];
    list.apply([ended(a)]);
    expect(list.revoked(a)).toBe(true);
    expect(list.revoked(b)).toBe(false);
    expect(list.revoked({ ...a, realm: randomUUID() })).toBe(true);
  });

  it('ends every session of a user, a client or a realm started up to the entry, not one started after', () => {
    const { list } = make();
    const ann = randomUUID();
    const before = session({ subject: ann, sessionId: uuidv7(T) });
    const after = session({ subject: ann, sessionId: uuidv7(T + 1) });
    const older = session({ subject: ann, sessionId: randomUUID() });
    list.apply([{ realm: REALM, kind: 'user', subject: hashedSubject(ann), upTo: T, until: T + 300_000 }]);
    expect([before, after, older].map(list.revoked)).toEqual([true, false, true]);
    expect(list.revoked(session({ sessionId: uuidv7(T) }))).toBe(false);
    expect(list.revoked({ ...before, realm: randomUUID() })).toBe(false);

    list.apply([{ realm: REALM, kind: 'client', subject: hashedSubject('svc'), upTo: T, until: T + 300_000 }]);
    expect(list.revoked(session({ clientId: 'svc' }))).toBe(true);
    expect(list.revoked(session({ clientId: 'svc', sessionId: uuidv7(T + 5) }))).toBe(false);
    expect(list.revoked(session({ clientId: 'other' }))).toBe(false);

    list.apply([{ realm: REALM, kind: 'realm', subject: REALM, upTo: T, until: T + 300_000 }]);
    expect(list.revoked(session())).toBe(true);
    expect(list.revoked(session({ sessionId: uuidv7(T + 5) }))).toBe(false);
  });

  it('reads when a session started from its UUIDv7 id', () => {
    expect(sessionStartedAt(uuidv7(T + 123))).toBe(T + 123);
    expect(sessionStartedAt(randomUUID())).toBe(-Infinity);
    expect(sessionStartedAt('')).toBe(-Infinity);
  });

  it('drops an entry once every token it covers has expired, the clock tolerance after its end', () => {
    const { list, clock } = make();
    const a = session();
    list.apply([ended(a, T + 60_000), { realm: REALM, kind: 'realm', subject: REALM, upTo: T, until: T + 60_000 }]);
    expect(list.size()).toBe(2);
    clock.advance(60_000 + 30_000);
    list.prune();
    expect(list.size()).toBe(2);
    expect(list.revoked(a)).toBe(true);
    clock.advance(1);
    list.prune();
    expect(list.size()).toBe(0);
    expect(list.revoked(a)).toBe(false);
  });

  it('replaces everything on a full read, and keeps the later end of an entry listed twice', () => {
    const { list } = make();
    const [a, b] = [session(), session()];
    list.apply([ended(a, T + 1000), ended(a, T + 90_000)]);
    list.apply([ended(b)], true);
    expect(list.revoked(a)).toBe(false);
    expect(list.revoked(b)).toBe(true);
    expect(list.size()).toBe(1);
  });

  it('tells a watcher once, when its session is ended, and never after it stopped watching', () => {
    const { list } = make();
    const [a, b, c] = [session(), session(), session({ clientId: 'svc' })];
    const told: string[] = [];
    list.watch(a, () => told.push('a'));
    const stopB = list.watch(b, () => told.push('b'));
    list.watch(c, () => told.push('c'));
    list.apply([ended(a)]);
    list.apply([ended(a)]);
    stopB();
    list.apply([ended(b), { realm: REALM, kind: 'client', subject: hashedSubject('svc'), upTo: T, until: T + 300_000 }]);
    expect(told).toEqual(['a', 'c']);
  });
});

/** A feed in memory: entries numbered as committed; `fail` makes reads throw; `changed` tells followers. */
function memoryFeed(id = 'f1') {
  let feed = id;
  const rows: Revocation[] = [];
  const followers = new Set<() => void>();
  let fail = false;
  const reads: (FeedCursor | undefined)[] = [];
  const api: RevocationFeed = {
    async read(cursor): Promise<FeedBatch> {
      reads.push(cursor);
      if (fail) throw new Error('the store does not answer');
      const full = !cursor || cursor.feed !== feed || cursor.after > rows.length;
      return { cursor: { feed, after: rows.length }, entries: rows.slice(full ? 0 : cursor.after), full };
    },
    follow(changed) {
      followers.add(changed);
      return () => followers.delete(changed);
    },
  };
  return {
    api,
    reads,
    add(e: Revocation, tell = true) {
      rows.push(e);
      if (tell) followers.forEach((f) => f());
    },
    replace(newId: string, entries: Revocation[]) {
      feed = newId;
      rows.splice(0, rows.length, ...entries);
      followers.forEach((f) => f());
    },
    set failing(v: boolean) {
      fail = v;
    },
    followers: () => followers.size,
  };
}

const settle = () => new Promise((r) => setImmediate(r));

describe('following the feed', () => {
  const make = () => {
    const clock = testClock(T);
    const list = createRevocationList({ clock, toleranceMs: 30_000 });
    const feed = memoryFeed();
    const errors: string[] = [];
    let recovered = 0;
    const follower = followRevocations(feed.api, list, { onError: (e) => errors.push(e.message), onRecovery: () => recovered++ });
    return { list, feed, follower, errors, recovered: () => recovered };
  };

  it('loads the whole list at start, before it says it is loaded', async () => {
    const { list, feed, follower } = make();
    const a = session();
    feed.add(ended(a));
    expect(follower.loaded()).toBe(false);
    const started = follower.start();
    expect(list.revoked(a)).toBe(false);
    await started;
    expect(follower.loaded()).toBe(true);
    expect(list.revoked(a)).toBe(true);
    expect(feed.reads).toEqual([undefined]);
    follower.close();
  });

  it('reads only what is new when the feed tells of a change, from where it stood', async () => {
    const { list, feed, follower } = make();
    await follower.start();
    const b = session();
    feed.add(ended(b));
    await settle();
    expect(list.revoked(b)).toBe(true);
    expect(feed.reads.at(-1)).toEqual({ feed: 'f1', after: 0 });
    follower.close();
    expect(feed.followers()).toBe(0);
  });

  it('after a failed read keeps its list, tells once, and catches up from the same cursor', async () => {
    const { list, feed, follower, errors, recovered } = make();
    const a = session();
    feed.add(ended(a));
    await follower.start();
    feed.failing = true;
    const [b, c] = [session(), session()];
    feed.add(ended(b));
    feed.add(ended(c));
    await settle();
    expect(errors).toEqual(['the store does not answer']);
    expect(list.revoked(a)).toBe(true);
    expect(list.revoked(b)).toBe(false);
    feed.failing = false;
    await follower.refresh();
    expect([a, b, c].map(list.revoked)).toEqual([true, true, true]);
    expect(feed.reads.at(-1)).toEqual({ feed: 'f1', after: 1 });
    expect(recovered()).toBe(1);
    follower.close();
  });

  it('a change told while a read runs is read after it: nothing heard is left unread', async () => {
    const { list, feed, follower } = make();
    await follower.start();
    const sessions = Array.from({ length: 5 }, () => session());
    // Each change is told while the read of the one before is still running.
    sessions.forEach((s) => feed.add(ended(s)));
    await follower.refresh();
    expect(sessions.map(list.revoked)).toEqual([true, true, true, true, true]);
    // One read at a time: at most the running one and one queued behind it.
    expect(feed.reads.length).toBeLessThanOrEqual(4);
    follower.close();
  });

  it('reads a change it was not told of at the next refresh (a revocation made in this process)', async () => {
    const { list, feed, follower } = make();
    await follower.start();
    const a = session();
    feed.add(ended(a), false);
    expect(list.revoked(a)).toBe(false);
    await follower.refresh();
    expect(list.revoked(a)).toBe(true);
    follower.close();
  });

  it("replaces its list when the feed is another store's (restored, or another token service)", async () => {
    const { list, feed, follower } = make();
    const [a, b] = [session(), session()];
    feed.add(ended(a));
    await follower.start();
    feed.replace('f2', [ended(b)]);
    await follower.refresh();
    expect(list.revoked(a)).toBe(false);
    expect(list.revoked(b)).toBe(true);
    follower.close();
  });

  it('fails its start when the first read fails, and loads on a later start', async () => {
    const { list, feed, follower } = make();
    const a = session();
    feed.add(ended(a));
    feed.failing = true;
    await expect(follower.start()).rejects.toThrow('the store does not answer');
    expect(follower.loaded()).toBe(false);
    feed.failing = false;
    await follower.start();
    expect(list.revoked(a)).toBe(true);
    expect(feed.followers()).toBe(1);
    follower.close();
  });
});

describe('a stream until its session is ended', () => {
  /** A source that yields `items` then waits until returned; says whether it was returned. */
  function source(items: string[]) {
    let returned = false;
    let release = () => undefined as void;
    const it: AsyncIterator<string> = {
      async next() {
        if (items.length) return { done: false, value: items.shift()! };
        await new Promise<void>((r) => (release = r));
        return { done: true, value: undefined };
      },
      async return() {
        returned = true;
        release();
        return { done: true, value: undefined };
      },
    };
    return { it, returned: () => returned };
  }

  it('passes the items through, then ends with `last` at once, even while an item is awaited, and returns the source', async () => {
    const list = createRevocationList({ clock: testClock(T), toleranceMs: 30_000 });
    const s = session();
    const src = source(['a', 'b']);
    const stream = endWhenRevoked(src.it, [s], list, () => 'revoked');
    expect(await stream.next()).toEqual({ done: false, value: 'a' });
    expect(await stream.next()).toEqual({ done: false, value: 'b' });
    const waiting = stream.next();
    list.apply([ended(session())]);
    list.apply([ended(s)]);
    expect(await waiting).toEqual({ done: false, value: 'revoked' });
    expect(await stream.next()).toEqual({ done: true, value: undefined });
    expect(src.returned()).toBe(true);
  });

  it('fails with what `last` throws, and stops watching once the stream is over', async () => {
    const list = createRevocationList({ clock: testClock(T), toleranceMs: 30_000 });
    const [s, t] = [session(), session()];
    const stream = endWhenRevoked(source([]).it, [s], list, () => {
      throw new Error('Invalid token: revoked');
    });
    const waiting = stream.next();
    list.apply([ended(s)]);
    await expect(waiting).rejects.toThrow('Invalid token: revoked');
    // A stream that ended by itself is not told.
    const done = endWhenRevoked(source(['x']).it, [t], list, () => 'late');
    await done.return!();
    list.apply([ended(t)]);
    expect(await done.next()).toEqual({ done: true, value: undefined });
  });
});
