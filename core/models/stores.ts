import type { ChatCache } from './answers/cache';
import type { CatalogStore } from './catalog/catalog-store';
import type { KeyStore, LimitCounters, ResponseStore, UsageStore } from './ports';
import type { DeploymentHealth } from './routing/health';
import type { CooldownListener } from './routing/memory-health';

/**
 * The adapters of the model gateway's ports, one per port, as the composition root picked them
 * (services/models/stores.ts): `sqliteModelsStores` (models.db) for all of them, with PostgreSQL's
 * (`pgModelsStores`: keys, usage, stored responses, the catalog's changes) and Redis's (`redisModelsStores`: limit counts,
 * answers, deployment health) in place of some, so every replica sees the same keys, totals, limits and responses.
 */
export interface ModelsStores {
  keys: KeyStore;
  usage: UsageStore;
  limits: LimitCounters;
  responses: ResponseStore;
  /** The catalog's run-time changes (the admin API), read by every process and replica. */
  catalog: CatalogStore;
  /** The answer cache (cache.ts) over its store, and how it deletes expired answers (0 where they expire by themselves). */
  cache: ChatCache & { sweep(): number };
  /**
   * Opens the deployments' health (issue 35) shared by every replica (Redis); the core passes what
   * counts a cooldown. Absent, each process keeps its own (routing/memory-health.ts).
   */
  health?: (onCooldown?: CooldownListener) => DeploymentHealth;
  /** Lets go of what the stores opened themselves (models.db), once the core has flushed `usage`. */
  close(): void;
}
