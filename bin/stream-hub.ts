import cluster from 'node:cluster';
import type { Logger } from 'pino';
import type { Config } from '../core/shared/config';
import type { Redis } from '../core/shared/redis';
import type { StreamHub } from '../gateway/stream-hub/hub';
import { ipcStreamHub, type HubChannel } from '../gateway/stream-hub/ipc';
import { localStreamHub } from '../gateway/stream-hub/local';
import { redisStreamHub } from '../gateway/stream-hub/redis';

/**
 * Where the gateway's event streams (graphql-sse's single connection mode) are known: in Redis when
 * REDIS_URL is set (every replica, and every worker of each), else through the cluster's primary in
 * a worker of `platform start` (the workers of this host), else in this process alone.
 */
export function streamHubFor(config: Config, redis: Redis | undefined, log: Logger): StreamHub {
  if (redis) return redisStreamHub(redis, { prefix: `${config.REDIS_KEY_PREFIX}gateway:sse:`, log });
  if (cluster.isWorker && process.send) return ipcStreamHub(process as unknown as HubChannel);
  return localStreamHub();
}
