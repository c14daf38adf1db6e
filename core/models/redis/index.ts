import type { Redis } from '../../shared/redis';
import type { ModelsStores } from '../stores';
import { redisChatCache, type RedisCacheOptions } from './answer-store';
import { redisLimitCounters } from './limit-counters';

/**
 * The ports Redis (REDIS_URL) holds for every replica: the limit counts and the answers (which
 * Redis expires itself: nothing to sweep). The caller owns the client.
 */
export function redisModelsStores(
  client: Redis,
  opts: { prefix: string; cache: Omit<RedisCacheOptions, 'prefix'> },
): Pick<ModelsStores, 'limits' | 'cache'> {
  return {
    limits: redisLimitCounters(client, `${opts.prefix}limits:`),
    cache: { ...redisChatCache({ ...opts.cache, client, prefix: `${opts.prefix}cache:` }), sweep: () => 0 },
  };
}
