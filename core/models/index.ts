import { systemClock, type Clock } from '../clock';
import { isActive, loadCatalog, type CatalogModel } from './catalog';
import { DeactivatedModel, InvalidKey, MissingKey, ModelNotAllowed, UnknownModel } from './errors';
import { parseApiKeyHeader } from './key-options';
import { keyStore, openModelsDb, type KeyStore } from './keys';
import type { ModelsService } from './service';

export interface ModelsCore {
  service: ModelsService;
  keys: KeyStore;
  catalog: readonly CatalogModel[];
  close(): void;
}

export interface ModelsCoreOptions {
  /** SQLite file, or `:memory:`. */
  file: string;
  clock?: Clock;
  durable?: boolean;
  /** A catalog JSON file; the built-in catalog when absent. */
  catalogFile?: string;
}

/** Wires the model gateway over its embedded store and its catalog. */
export function openModelsCore(opts: ModelsCoreOptions): ModelsCore {
  const catalog = loadCatalog(opts.catalogFile);
  const db = openModelsDb(opts.file, { durable: opts.durable });
  const keys = keyStore(db, opts.clock ?? systemClock);
  const byId = new Map(catalog.map((m) => [m.id, m]));
  const allowed = (k: { models: string[] | null }, id: string) => !k.models || k.models.includes(id);

  const service: ModelsService = {
    authenticate(header) {
      if (!header?.trim()) throw new MissingKey();
      // The key first: a stranger learns nothing about options from a 400.
      const found = keys.verify(header.split('/', 1)[0]!.trim());
      if (!found) throw new InvalidKey();
      return { key: found, options: parseApiKeyHeader(header).options };
    },
    listModels: async ({ caller }) => catalog.filter((m) => allowed(caller.key, m.id)),
    model({ caller, id }) {
      const m = byId.get(id);
      if (!m) throw new UnknownModel(id);
      if (!isActive(m)) throw new DeactivatedModel(id, m.status);
      if (!allowed(caller.key, id)) throw new ModelNotAllowed(id);
      return m;
    },
  };
  return { service, keys, catalog, close: () => db.close() };
}
