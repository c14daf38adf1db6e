import type { ChatCache } from './answers/cache';
import type { CatalogStore } from './catalog/catalog-store';
import type { KeyStore, LimitCounters, ResponseStore, SpendCounters, TenantBudgetStore, UsageStore } from './ports';

/**
 * The adapters of the model gateway's ports, one per port, as the composition root picked them
 * (services/models/stores.ts): `sqliteModelsStores` (models.db) for all of them, with PostgreSQL's
 * (`pgModelsStores`: keys, usage, stored responses, the catalog's changes) and Redis's (`redisModelsStores`: limit counts,
 * answers) in place of some, so every replica sees the same keys, totals, limits and responses.
 */
export interface ModelsStores {
  keys: KeyStore;
  usage: UsageStore;
  limits: LimitCounters;
  responses: ResponseStore;
  /** Money spent and reserved per key and tenant and period (budgets in money, docs/spend.md). */
  spend: SpendCounters;
  /** The tenants' money budgets (the admin API's). */
  budgets: TenantBudgetStore;
  /** The catalog's run-time changes (the admin API), read by every process and replica. */
  catalog: CatalogStore;
  /** The answer cache (cache.ts) over its store, and how it deletes expired answers (0 where they expire by themselves). */
  cache: ChatCache & { sweep(): number };
  /** Lets go of what the stores opened themselves (models.db), once the core has flushed `usage`. */
  close(): void;
}
