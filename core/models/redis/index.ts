import type { Redis } from '../../shared/redis';
import type { ModelsStores } from '../stores';
import { redisChatCache, type RedisCacheOptions } from './answer-store';
import { redisLimitCounters } from './limit-counters';
import { redisSpendCounters } from './spend-counters';

/**
 * The ports Redis (REDIS_URL) holds for every replica: the limit counts and the answers (which
 * Redis expires itself: nothing to sweep). The caller owns the client.
 */
export function redisModelsStores(
  client: Redis,
  opts: { prefix: string; cache: Omit<RedisCacheOptions, 'prefix'> },
): Pick<ModelsStores, 'limits' | 'cache' | 'spend'> {
  return {
    limits: redisLimitCounters(client, `${opts.prefix}limits:`),
    spend: redisSpendCounters(client, `${opts.prefix}spend:`),
    cache: { ...redisChatCache({ ...opts.cache, client, prefix: `${opts.prefix}cache:` }), sweep: () => 0 },
  };
}
