import { isActive, parseCatalogEntry, type CatalogModel, type CatalogSource, type LoadedCatalog } from './catalog';
import { generationOf, type StoredModel } from './catalog-store';

/** The label a model deactivated through the admin API answers with (as a file's `Deactivated` model does). */
export const DEACTIVATED = 'Deactivated';

/** A model of the effective catalog with its state, as the admin API shows it. */
export interface CatalogEntryState {
  /** The model as calls see it: the entry, its status `Deactivated` while deactivated. */
  model: CatalogModel;
  /** `admin` once the admin API gave it an entry; `file` for the catalog file's (or built-in) entry. */
  source: 'file' | 'admin';
  /** Whether calls reach it: not deactivated, and its entry's status is Active. */
  active: boolean;
  /** 1 for a file model never changed; each change adds one. */
  version: number;
  updatedAt: number | null;
  updatedBy: string | null;
}

/** One effective catalog, never changed once made: a change makes a new one, swapped in whole. */
export interface CatalogSnapshot {
  /** Every model, the file's first (in its order), then the admin API's own by id. */
  models: readonly CatalogModel[];
  byId: ReadonlyMap<string, CatalogEntryState>;
  sources: ReadonlyMap<string, CatalogSource>;
  /** The store's generation this was made from (catalog-store.ts). */
  generation: number;
}

/**
 * The file's catalog overridden and extended by the stored rows: a row's entry replaces the file's
 * model of its id (or adds one), a row deactivated deactivates the model of either source. A row
 * whose entry no longer passes the catalog's checks (written by another version) is left out and
 * told to `onBadRow`, so one bad row never takes the catalog down.
 */
export function effectiveCatalog(
  file: LoadedCatalog,
  rows: readonly StoredModel[],
  onBadRow: (id: string, error: string) => void = () => undefined,
): CatalogSnapshot {
  const byRow = new Map<string, StoredModel & { model?: CatalogModel }>();
  for (const r of rows) {
    if (r.entry === null) {
      byRow.set(r.id, r);
      continue;
    }
    const parsed = parseCatalogEntry(r.entry);
    if ('error' in parsed) onBadRow(r.id, parsed.error);
    else if (parsed.model.id !== r.id) onBadRow(r.id, `its entry's id is ${parsed.model.id}`);
    else byRow.set(r.id, { ...r, model: parsed.model });
  }
  const byId = new Map<string, CatalogEntryState>();
  const sources = new Map<string, CatalogSource>();
  const add = (entry: CatalogModel, row: (StoredModel & { model?: CatalogModel }) | undefined, source: CatalogSource) => {
    const on = row?.active ?? true;
    const model = on ? entry : { ...entry, status: DEACTIVATED };
    byId.set(entry.id, {
      model,
      source: row?.model ? 'admin' : 'file',
      active: isActive(model),
      version: row?.version ?? 1,
      updatedAt: row?.updatedAt ?? null,
      updatedBy: row?.updatedBy ?? null,
    });
    sources.set(entry.id, row?.model ? 'admin' : source);
  };
  for (const m of file.models) {
    const row = byRow.get(m.id);
    add(row?.model ?? m, row, file.sources.get(m.id) ?? 'file');
  }
  const own = [...byRow.values()].filter((r) => r.model && !byId.has(r.id)).sort((a, b) => (a.id < b.id ? -1 : 1));
  for (const r of own) add(r.model!, r, 'admin');
  return { models: [...byId.values()].map((s) => s.model), byId, sources, generation: generationOf(rows) };
}
