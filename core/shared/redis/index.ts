import { Redis } from 'ioredis';

export type { Redis };

export interface RedisOptions {
  /** How long one command may take before it fails (the caller then goes on without Redis). Default 300 ms. */
  commandTimeoutMs?: number;
  /** Default 2000 ms. */
  connectTimeoutMs?: number;
  /** Told once per outage (not once per reconnect attempt); the client keeps reconnecting by itself. */
  onError?: (err: Error) => void;
}

/** A Redis client that is opened with `openRedis`, plus `ping` (start-up fails fast) and `close`. */
export interface OpenedRedis {
  client: Redis;
  /** Resolves once Redis answers; rejects with a message naming the server (without credentials). */
  ping(this: void): Promise<void>;
  /** Whether the connection is up now (readiness). */
  ready(): boolean;
  close(this: void): Promise<void>;
}

const asError = (e: unknown): Error => (e instanceof Error ? e : new Error(String(e)));

/** The URL without credentials, fit for messages and logs. */
export function redisWhere(url: string): string {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    return u.toString();
  } catch {
    return 'the configured URL';
  }
}

/**
 * A client for `url` (`REDIS_URL`) with settings that keep a down or stalled Redis out of the way:
 * commands time out, and while disconnected they fail at once instead of queueing behind the
 * reconnects, so no request hangs on Redis.
 */
export function openRedis(url: string, opts: RedisOptions = {}): OpenedRedis {
  const commandTimeout = opts.commandTimeoutMs ?? 300;
  const connectTimeout = opts.connectTimeoutMs ?? 2000;
  const client = new Redis(url, { commandTimeout, connectTimeout, enableOfflineQueue: false, maxRetriesPerRequest: 1 });
  let down = false;
  client.on('error', (e: Error) => {
    if (!down) opts.onError?.(e);
    down = true;
  });
  client.on('ready', () => (down = false));
  return {
    client,
    ready: () => client.status === 'ready',
    ping: () =>
      reachable(client, connectTimeout + commandTimeout).catch((e: unknown) => {
        throw new Error(`Redis at ${redisWhere(url)} is unreachable: ${asError(e).message}`);
      }),
    async close() {
      // QUIT waits for the replies still due; a Redis that cannot answer it is simply dropped.
      await client.quit().catch(() => client.disconnect());
    },
  };
}

/** Waits for the client to be ready (or to fail), then PINGs. */
async function reachable(client: Redis, timeoutMs: number): Promise<void> {
  if (client.status !== 'ready') {
    await new Promise<void>((resolve, reject) => {
      const settle = (err?: Error) => {
        clearTimeout(timer);
        client.off('ready', ok).off('error', settle).off('end', ended);
        if (err) reject(err);
        else resolve();
      };
      const ok = () => settle();
      const ended = () => settle(new Error('connection closed'));
      const timer = setTimeout(() => settle(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      client.on('ready', ok).on('error', settle).on('end', ended);
    });
  }
  await client.ping();
}
