import type { ModelsCore } from '../../core/models';

/** What the models module opens: its core and the data directory its commands work in. */
export interface ModelsInstance extends ModelsCore {
  dataDir: string;
}
