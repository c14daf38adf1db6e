import type { Redis } from '../../shared/redis';
import type { ModelsStores } from '../stores';
import { redisChatCache, type RedisCacheOptions } from './answer-store';
import { redisLimitCounters } from './limit-counters';
import { redisDeploymentHealth, type RedisHealthOp } from './deployment-health';

/**
 * The ports Redis (REDIS_URL) holds for every replica: the limit counts, the answers (which
 * Redis expires itself: nothing to sweep) and the deployments' cooldowns. The caller owns the client.
 */
export function redisModelsStores(
  client: Redis,
  opts: { prefix: string; cache: Omit<RedisCacheOptions, 'prefix'>; onHealthError?: (op: RedisHealthOp, err: Error) => void },
): Pick<ModelsStores, 'limits' | 'cache' | 'health'> {
  return {
    health: (onCooldown) => redisDeploymentHealth({ client, prefix: `${opts.prefix}health:`, onCooldown, onError: opts.onHealthError }),
    limits: redisLimitCounters(client, `${opts.prefix}limits:`),
    cache: { ...redisChatCache({ ...opts.cache, client, prefix: `${opts.prefix}cache:` }), sweep: () => 0 },
  };
}
