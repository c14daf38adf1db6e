import type { Redis } from '../../shared/redis';
import type { ModelsStores } from '../stores';
import { redisChatCache, type RedisCacheOptions } from './answer-store';
import { redisLimitCounters } from './limit-counters';
import { redisDeploymentHealth, type RedisHealthOp } from './deployment-health';
import { redisSemanticStore } from './semantic-store';
import { redisSpendCounters } from './spend-counters';

/**
 * The ports Redis (REDIS_URL) holds for every replica: the limit counts, the answers (which Redis
 * expires itself: nothing to sweep), the semantic cache's prompts and the deployments' cooldowns.
 * The caller owns the client.
 */
export function redisModelsStores(
  client: Redis,
  opts: { prefix: string; cache: Omit<RedisCacheOptions, 'prefix'>; onHealthError?: (op: RedisHealthOp, err: Error) => void },
): Pick<ModelsStores, 'limits' | 'cache' | 'health' | 'semantic' | 'spend'> {
  return {
    health: (onCooldown) => redisDeploymentHealth({ client, prefix: `${opts.prefix}health:`, onCooldown, onError: opts.onHealthError }),
    semantic: redisSemanticStore(client, { prefix: `${opts.prefix}semantic:` }),
    limits: redisLimitCounters(client, `${opts.prefix}limits:`),
    spend: redisSpendCounters(client, `${opts.prefix}spend:`),
    cache: { ...redisChatCache({ ...opts.cache, client, prefix: `${opts.prefix}cache:` }), sweep: () => 0 },
  };
}
