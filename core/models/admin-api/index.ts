import type { AuditTrail } from '../../shared/admin/audit';
import type { Clock } from '../../shared/clock';
import type { LiveCatalog } from '../catalog/live-catalog';
import type { ApiKeys } from '../keys/keys';
import type { UsageStore } from '../ports';
import type { DeploymentHealth } from '../routing/health';
import { catalogAdmin } from './catalog';
import { keysAdmin } from './keys';
import { usageAdmin } from './usage';

export { keyView, type KeyView, type NewKeyView, type KeyCreateInput, type KeyListInput } from './keys';
export { usageRow, type UsageRow, type UsageInput } from './usage';
export type { PageView } from './page';
export type { DeploymentView, DeploymentStateView } from './deployments';

export interface ModelsAdminDeps {
  keys: ApiKeys;
  usage: UsageStore;
  catalog: LiveCatalog;
  audit: AuditTrail;
  clock: Clock;
  health?: DeploymentHealth;
}

/**
 * The model gateway's part of the admin API (docs/admin.md), one object for every face: the REST
 * routes (rest/models/admin), the subgraph's admin fields and the `platform` command. Each method
 * takes `(input, ctx)` whose caller is an administrator and answers the views the faces show.
 */
export function createModelsAdminApi(d: ModelsAdminDeps) {
  const { catalog } = d;
  const missing = (ids: readonly string[]) => ids.filter((id) => !catalog.current().byId.has(id));
  /** A model another replica added a moment ago is looked for in the store before it is called unknown. */
  const notInCatalog = async (ids: readonly string[]) => {
    if (missing(ids).length === 0) return [];
    await catalog.refresh();
    return missing(ids);
  };
  return {
    keys: keysAdmin({ ...d, notInCatalog }),
    usage: usageAdmin(d),
    catalog: catalogAdmin({ catalog, audit: d.audit, clock: d.clock, health: d.health }),
  };
}

export type ModelsAdminApi = ReturnType<typeof createModelsAdminApi>;
