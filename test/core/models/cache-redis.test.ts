import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { Redis } from 'ioredis';
import { cacheKey } from '../../../core/models/answers/cache';
import {
  openRedisChatCache,
  type OpenedRedisChatCache,
  type OpenRedisOptions,
  type RedisCacheOp,
} from '../../../core/models/redis/answer-store';
import type { ChatStream, FinishReason } from '../../../core/models/neutral';

// Needs a real Redis: this machine runs one at redis://127.0.0.1:6379 and CI sets REDIS_URL.
const url = process.env.REDIS_URL;
const d = url ? describe : describe.skip;

const answer = (pieces: string[], finishReason: FinishReason = 'stop'): ChatStream => ({
  pieces: (async function* gen() {
    yield* pieces;
  })(),
  done: Promise.resolve({ finishReason, usage: { promptTokens: 3, completionTokens: pieces.length } }),
});
const read = async (s: ChatStream) => {
  const pieces: string[] = [];
  for await (const p of s.pieces) pieces.push(p);
  return { pieces, ...(await s.done) };
};
/** An upstream that counts its calls and answers the next of `answers`. */
const upstreamOf = (...answers: (() => ChatStream)[]) => {
  const up = async () => answers[up.calls++ % answers.length]();
  up.calls = 0;
  return up;
};
const errors = () => {
  const seen: { op: RedisCacheOp; message: string }[] = [];
  return { seen, onError: (op: RedisCacheOp, e: Error) => seen.push({ op, message: e.message }) };
};

/** A TCP server on a free port; each socket is handed to `onSocket`. Closed after the test. */
const servers: { close(): Promise<void> }[] = [];
async function listen(onSocket: (s: net.Socket) => void): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    onSocket(s);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as net.AddressInfo;
  const handle = {
    port,
    close: () => {
      sockets.forEach((s) => s.destroy());
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
  servers.push(handle);
  return handle;
}

d('the Redis chat cache', () => {
  const prefix = `test:cache-redis:${randomUUID()}:`;
  // Each distinct `request` a distinct chat request (its one message's text).
  const key = (tenant: string, request: unknown) =>
    cacheKey(tenant, 'local-chat', { model: 'm', messages: [{ role: 'user', text: JSON.stringify(request) }] });
  // Every cache a test opens is closed after it, passed or not, so no client outlives its test.
  const opened: OpenedRedisChatCache[] = [];
  const track = (c: OpenedRedisChatCache) => (opened.push(c), c);
  /** A cache on the real Redis, connected (a call made while it still connects is a plain miss). */
  const open = async (o: Partial<OpenRedisOptions> = {}) => {
    const c = track(openRedisChatCache(url!, { ttlMs: 60_000, maxEntryBytes: 1 << 20, prefix, ...o }));
    await c.ping();
    return c;
  };
  let admin: Redis;

  beforeAll(() => {
    admin = new Redis(url!);
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((c) => c.close()));
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });
  afterAll(async () => {
    const keys = await admin.keys(`${prefix}*`);
    if (keys.length) await admin.del(...keys);
    await admin.quit();
  });

  it('answers a miss from upstream, then replays the same pieces, finish reason and usage', async () => {
    const cache = await open();
    await cache.ping();
    const k = key('t1', { model: 'm', messages: ['hello'] });
    const up = upstreamOf(() => answer(['Hel', 'lo', ' there'], 'length'));
    const miss = await cache.through(k, up);
    expect(miss.outcome).toBe('MISS');
    const first = await read(miss.stream);
    expect(first).toEqual({ pieces: ['Hel', 'lo', ' there'], finishReason: 'length', usage: { promptTokens: 3, completionTokens: 3 } });

    const hit = await cache.through(k, up);
    expect(hit.outcome).toBe('HIT');
    expect(await read(hit.stream)).toEqual(first);
    expect(up.calls).toBe(1);
    // Stored under the prefix with Redis's own expiry.
    const ttl = await admin.pttl(prefix + k);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000);
  });

  it('forgets an entry once its TTL has passed', async () => {
    const cache = await open({ ttlMs: 200 });
    const k = key('t1', { ttl: true });
    const up = upstreamOf(() => answer(['a']));
    await read((await cache.through(k, up)).stream);
    await cache.ping(); // the SET went before this PING on the same connection
    const ttl = await admin.pttl(prefix + k);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(200);
    while (await admin.exists(prefix + k)) await new Promise((r) => setTimeout(r, 50));
    expect((await cache.through(k, up)).outcome).toBe('MISS');
    expect(up.calls).toBe(2);
  });

  it('never keeps an errored, filtered, failed or abandoned answer', async () => {
    const cache = await open();
    const cases: [string, () => ChatStream, (s: ChatStream) => Promise<unknown>][] = [
      ['error', () => answer(['x'], 'error'), read],
      ['filtered', () => answer(['x'], 'content_filter'), read],
      [
        'thrown',
        () => ({
          pieces: (async function* broken() {
            yield 'x';
            throw new Error('upstream went away');
          })(),
          done: Promise.resolve({ finishReason: 'error' as const, usage: { promptTokens: 1, completionTokens: 1 } }),
        }),
        (s) => read(s).catch(() => undefined),
      ],
      [
        'abandoned',
        () => answer(['p', 'q', 'r']),
        async (s) => {
          const it = s.pieces[Symbol.asyncIterator]();
          await it.next();
          await it.return?.();
        },
      ],
    ];
    for (const [name, make, consume] of cases) {
      const k = key('t1', { case: name });
      const up = upstreamOf(make);
      const first = await cache.through(k, up);
      expect(first.outcome).toBe('MISS');
      await consume(first.stream);
      await cache.ping();
      expect([name, (await cache.through(k, up)).outcome]).toEqual([name, 'MISS']);
      expect(await admin.exists(prefix + k)).toBe(0);
    }
  });

  it('shares entries between instances (workers), never between tenants', async () => {
    const [a, b] = [await open(), await open()];
    const request = { model: 'm', messages: ['shared'] };
    const upA = upstreamOf(() => answer(['for ', 'tenant 1']));
    await read((await a.through(key('t1', request), upA)).stream);
    await a.ping();

    const other = await b.through(
      key('t1', request),
      upstreamOf(() => answer(['never'])),
    );
    expect(other.outcome).toBe('HIT');
    expect((await read(other.stream)).pieces).toEqual(['for ', 'tenant 1']);

    const upT2 = upstreamOf(() => answer(['for tenant 2']));
    const t2 = await b.through(key('t2', request), upT2);
    expect(t2.outcome).toBe('MISS');
    expect((await read(t2.stream)).pieces).toEqual(['for tenant 2']);
    await b.ping();
    expect((await read((await a.through(key('t1', request), upA)).stream)).pieces).toEqual(['for ', 'tenant 1']);
    expect((await read((await a.through(key('t2', request), upA)).stream)).pieces).toEqual(['for tenant 2']);
    expect([upA.calls, upT2.calls]).toEqual([1, 1]);
  });

  it('does not keep an answer larger than maxEntryBytes', async () => {
    const cache = await open({ maxEntryBytes: 200 });
    const big = key('t1', { size: 'big' });
    const small = key('t1', { size: 'small' });
    const upBig = upstreamOf(() => answer(['x'.repeat(120), 'y'.repeat(120)]));
    const upSmall = upstreamOf(() => answer(['short']));
    expect((await read((await cache.through(big, upBig)).stream)).pieces.join('')).toHaveLength(240);
    await read((await cache.through(small, upSmall)).stream);
    expect((await cache.through(big, upBig)).outcome).toBe('MISS');
    expect((await cache.through(small, upSmall)).outcome).toBe('HIT');
    expect(await admin.exists(prefix + big)).toBe(0);
  });

  it('answers every call from upstream when Redis is down, and says so', async () => {
    const closed = await listen(() => undefined);
    await closed.close();
    const { seen, onError } = errors();
    const cache = track(
      openRedisChatCache(`redis://user:sekret@127.0.0.1:${closed.port}`, { ttlMs: 60_000, maxEntryBytes: 1 << 20, prefix, onError }),
    );
    const up = upstreamOf(() => answer(['from ', 'upstream']));
    for (let i = 0; i < 3; i++) {
      const r = await cache.through(key('t1', { down: true }), up);
      expect(r.outcome).toBe('MISS');
      expect((await read(r.stream)).pieces).toEqual(['from ', 'upstream']);
    }
    expect(up.calls).toBe(3);
    expect(seen.filter((e) => e.op === 'get')).toHaveLength(3);
    const failure = await cache.ping().then(
      () => null,
      (e: Error) => e.message,
    );
    expect(failure).toMatch(new RegExp(`^Redis at redis://127\\.0\\.0\\.1:${closed.port}/? is unreachable`));
    expect(failure).not.toContain('sekret');
  });

  it('goes on without a Redis that stops answering, after the command timeout', async () => {
    // A proxy to the real Redis that can freeze: Redis is fine, then stalls mid-life.
    const target = new URL(url!);
    let frozen = false;
    const proxy = await listen((client) => {
      const server = net.connect(Number(target.port || 6379), target.hostname);
      client.on('data', (b) => frozen || server.write(b));
      server.on('data', (b) => frozen || client.write(b));
      client.on('close', () => server.destroy());
      server.on('close', () => client.destroy());
      server.on('error', () => client.destroy());
    });
    const { seen, onError } = errors();
    const proxied = new URL(url!);
    proxied.host = `127.0.0.1:${proxy.port}`;
    // Room for the answers before the freeze on a loaded machine; the frozen ones wait it out.
    const cache = track(
      openRedisChatCache(proxied.toString(), { ttlMs: 60_000, maxEntryBytes: 1 << 20, prefix, onError, commandTimeoutMs: 1000 }),
    );
    await cache.ping();
    const k = key('t1', { stall: true });
    const up = upstreamOf(() => answer(['fresh']));
    await read((await cache.through(k, up)).stream);
    await cache.ping();
    expect((await cache.through(k, up)).outcome).toBe('HIT');

    frozen = true;
    const r = await cache.through(k, up);
    expect(r.outcome).toBe('MISS');
    expect((await read(r.stream)).pieces).toEqual(['fresh']);
    expect(up.calls).toBe(2);
    expect(seen).toContainEqual({ op: 'get', message: 'Command timed out' });
  }, 10_000);

  it('answers from upstream when Redis accepts connections but never replies, and fails start-up fast', async () => {
    const stalled = await listen(() => undefined);
    const { seen, onError } = errors();
    const cache = track(
      openRedisChatCache(`redis://127.0.0.1:${stalled.port}`, {
        ttlMs: 60_000,
        maxEntryBytes: 1 << 20,
        prefix,
        onError,
        commandTimeoutMs: 200,
      }),
    );
    const up = upstreamOf(() => answer(['still ', 'answered']));
    const r = await cache.through(key('t1', { stalled: true }), up);
    expect(r.outcome).toBe('MISS');
    expect((await read(r.stream)).pieces).toEqual(['still ', 'answered']);
    expect(seen.some((e) => e.op === 'get')).toBe(true);
    await expect(cache.ping()).rejects.toThrow(/^Redis at redis:\/\/127\.0\.0\.1:\d+\/? is unreachable: .*timed out/);
  }, 10_000);
});
