import { createHash, randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Redis } from '../../core/shared/redis';
import type { HubMessage, HubOperation, HubRefusal, HubReply, Opened, StreamHub } from './hub';

/**
 * The single connection mode's streams across replicas (REDIS_URL): a stream's record lives in
 * Redis (`<prefix>s:<token>`: its owner and, once open, the process holding it; operations sent
 * before it opened in `<prefix>q:<token>`; each owner's streams in `<prefix>o:<sha256(owner)>`,
 * scored by expiry, for the per-owner bound). Each process listens on its own channel
 * (`<prefix>proc:<id>`); a request for a stream held elsewhere is published there and answered on
 * the sender's channel. The holder refreshes its streams' records every 10 s; a process that dies
 * leaves records that expire 30 s later, and a request it does not answer within 5 s finds the
 * stream gone (404), as its client, whose stream broke, already knows. Scripts keep each step atomic.
 */
const LIVE_MS = 30_000;
const TOUCH_EVERY_MS = 10_000;
const ANSWER_WITHIN_MS = 5_000;
/** How long an owner's index outlives its last stream (its entries carry their own expiry). */
const OWNER_INDEX_MS = 24 * 3600_000;

const RESERVE = `
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[3])
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[5]) then return 0 end
redis.call('HSET', KEYS[1], 'owner', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('ZADD', KEYS[2], tonumber(ARGV[3]) + tonumber(ARGV[4]), ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[6])
return 1`;

const OPEN = `
if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then return {'not_found'} end
if redis.call('HEXISTS', KEYS[1], 'holder') == 1 then return {'already_open'} end
redis.call('HSET', KEYS[1], 'holder', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('ZADD', KEYS[3], tonumber(ARGV[4]) + tonumber(ARGV[3]), ARGV[5])
local queued = redis.call('HVALS', KEYS[2])
redis.call('DEL', KEYS[2])
table.insert(queued, 1, 'opened')
return queued`;

const ROUTE = `
if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then return {'not_found'} end
local holder = redis.call('HGET', KEYS[1], 'holder')
if holder then return {'deliver', holder} end
if ARGV[2] == 'cancel' then
  redis.call('HDEL', KEYS[2], ARGV[3])
  return {'ok'}
end
if redis.call('HEXISTS', KEYS[2], ARGV[3]) == 1 then return {'taken'} end
if redis.call('HLEN', KEYS[2]) >= tonumber(ARGV[5]) then return {'too_many'} end
redis.call('HSET', KEYS[2], ARGV[3], ARGV[4])
redis.call('PEXPIRE', KEYS[2], math.max(1, redis.call('PTTL', KEYS[1])))
return {'ok'}`;

/** Forgets a stream, only if `holder` (when given) still holds it. */
const DROP = `
if ARGV[2] ~= '' and redis.call('HGET', KEYS[1], 'holder') ~= ARGV[2] then return 0 end
redis.call('DEL', KEYS[1], KEYS[2])
redis.call('ZREM', KEYS[3], ARGV[1])
return 1`;

const TOUCH = `
if redis.call('HGET', KEYS[1], 'holder') ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('ZADD', KEYS[2], tonumber(ARGV[3]) + tonumber(ARGV[2]), ARGV[4])
redis.call('PEXPIRE', KEYS[2], ARGV[5])
return 1`;

type Wire = { rid: number; from: string; msg: HubMessage } | { rid: number; reply: HubReply };

export interface RedisHubOptions {
  /** `<REDIS_KEY_PREFIX>gateway:sse:` */
  prefix: string;
  log: Logger;
}

export function redisStreamHub(client: Redis, opts: RedisHubOptions): StreamHub & { lost(listener: (token: string) => void): void } {
  const id = randomUUID();
  const p = opts.prefix;
  const keys = (token: string, owner: string) => ({
    stream: `${p}s:${token}`,
    queue: `${p}q:${token}`,
    owned: `${p}o:${createHash('sha256').update(owner).digest('hex')}`,
  });
  const channelOf = (process: string) => `${p}proc:${process}`;
  /** Streams this process holds, with their owners (for the keys of their records). */
  const held = new Map<string, string>();
  let handler: ((msg: HubMessage) => Promise<HubReply>) | undefined;
  const lostListeners: ((token: string) => void)[] = [];
  let seq = 0;
  const waiting = new Map<number, (reply: HubReply) => void>();

  const subscriber = client.duplicate();
  subscriber.on('error', () => undefined); // the shared client reports outages; this one reconnects and resubscribes by itself
  subscriber.on('message', (_channel: string, text: string) => {
    let wire: Wire;
    try {
      wire = JSON.parse(text) as Wire;
    } catch {
      return;
    }
    if ('reply' in wire) {
      waiting.get(wire.rid)?.(wire.reply);
      waiting.delete(wire.rid);
      return;
    }
    const answer = handler
      ? handler(wire.msg).catch((): HubReply => ({ refused: 'not_found' }))
      : Promise.resolve<HubReply>({ refused: 'not_found' });
    void answer
      .then((reply) => client.publish(channelOf(wire.from), JSON.stringify({ rid: wire.rid, reply } satisfies Wire)))
      .catch((err: unknown) => opts.log.warn({ err }, 'event streams: an answer to another process could not be published'));
  });
  const ready = (async () => {
    if (subscriber.status !== 'ready') await new Promise<void>((resolve) => subscriber.once('ready', () => resolve()));
    await subscriber.subscribe(channelOf(id));
  })();
  ready.catch((err: unknown) => opts.log.warn({ err }, 'event streams: could not listen on Redis'));

  const drop = (token: string, owner: string, holder = '') => {
    const k = keys(token, owner);
    return client.eval(DROP, 3, k.stream, k.queue, k.owned, token, holder);
  };

  /** Asks `holder` (another process) to act on `msg`; a holder that does not answer has lost the stream. */
  const ask = async (holder: string, owner: string, msg: HubMessage): Promise<HubReply> => {
    await ready;
    const rid = ++seq;
    const reply = new Promise<HubReply>((resolve) => {
      waiting.set(rid, resolve);
      setTimeout(() => {
        if (!waiting.delete(rid)) return;
        void drop(msg.token, owner, holder).catch(() => undefined);
        resolve({ refused: 'not_found' });
      }, ANSWER_WITHIN_MS).unref();
    });
    const listeners = await client.publish(channelOf(holder), JSON.stringify({ rid, from: id, msg } satisfies Wire));
    if (listeners === 0) {
      waiting.delete(rid);
      await drop(msg.token, owner, holder);
      return { refused: 'not_found' };
    }
    return reply;
  };

  // An outage is told once when it starts and once when it ends, not every 10 s.
  let failing = false;
  const touch = setInterval(() => {
    if (!held.size) return;
    const batch = client.multi();
    const tokens = [...held];
    for (const [token, owner] of tokens) {
      const k = keys(token, owner);
      batch.eval(TOUCH, 2, k.stream, k.owned, id, LIVE_MS, Date.now(), token, OWNER_INDEX_MS);
    }
    batch.exec().then(
      (results) => {
        if (failing) opts.log.info('event streams: Redis answers again; the streams held here are refreshed');
        failing = false;
        results?.forEach(([err, kept], i) => {
          if (err || kept !== 0) return;
          const token = tokens[i][0];
          held.delete(token);
          lostListeners.forEach((l) => l(token));
        });
      },
      (err: unknown) => {
        if (!failing)
          opts.log.warn(
            { err: (err as Error).message },
            'event streams: could not refresh the streams held here (their records expire 30 s after the last refresh)',
          );
        failing = true;
      },
    );
  }, TOUCH_EVERY_MS);
  touch.unref();

  return {
    async reserve(token, owner, bounds) {
      const k = keys(token, owner);
      return (
        (await client.eval(RESERVE, 2, k.stream, k.owned, owner, token, Date.now(), bounds.ttlMs, bounds.maxStreams, OWNER_INDEX_MS)) === 1
      );
    },
    async open(token, owner): Promise<Opened> {
      await ready;
      const k = keys(token, owner);
      const [status, ...queued] = (await client.eval(
        OPEN,
        3,
        k.stream,
        k.queue,
        k.owned,
        owner,
        id,
        LIVE_MS,
        Date.now(),
        token,
      )) as string[];
      if (status !== 'opened') return { opened: false, why: status === 'already_open' ? 'already_open' : 'not_found' };
      held.set(token, owner);
      return { opened: true, queued: queued.map((q) => JSON.parse(q) as HubOperation) };
    },
    async send(owner, msg, maxQueued) {
      const k = keys(msg.token, owner);
      const opId = msg.type === 'cancel' ? msg.id : msg.op.id;
      const op = msg.type === 'operation' ? JSON.stringify(msg.op) : '';
      const [status, holder] = (await client.eval(ROUTE, 2, k.stream, k.queue, owner, msg.type, opId, op, maxQueued)) as string[];
      if (status === 'deliver') {
        if (holder === id) return handler ? handler(msg) : { refused: 'not_found' };
        return ask(holder, owner, msg);
      }
      return status === 'ok' ? { ok: true } : { refused: status as HubRefusal };
    },
    async closed(token) {
      const owner = held.get(token);
      held.delete(token);
      if (owner !== undefined)
        await drop(token, owner, id).catch((err: unknown) =>
          opts.log.warn({ err: (err as Error).message }, 'event streams: a closed stream could not be forgotten (it expires)'),
        );
    },
    serve(h) {
      handler = h;
    },
    lost(listener) {
      lostListeners.push(listener);
    },
    async close() {
      clearInterval(touch);
      await Promise.all([...held.keys()].map((token) => this.closed(token)));
      for (const resolve of waiting.values()) resolve({ refused: 'not_found' });
      waiting.clear();
      await subscriber.quit().catch(() => subscriber.disconnect());
    },
  };
}
