import type { CatalogModel, CatalogSource, LoadedCatalog } from './catalog';
import type { CatalogStore, CatalogWrite, StoredModel, WriteIf } from './catalog-store';
import { effectiveCatalog, type CatalogSnapshot } from './effective';

/**
 * The effective catalog of this process, read on every call, so kept in memory: one immutable
 * snapshot swapped whole when the store changes. A change this process makes is applied at once
 * (`refresh` after the write); another process's or replica's is found by polling the store's
 * change counter every `pollMs` (one cheap query; the catalog is read again only when it moved).
 */
export interface LiveCatalog {
  /** The snapshot now (synchronous). */
  current(this: void): CatalogSnapshot;
  /** Settles once the store was first read (or failed to be: the file's catalog then serves until a poll succeeds). */
  ready: Promise<void>;
  /** Reads the store again now if it moved; resolves once this process serves what it holds. */
  refresh(this: void): Promise<void>;
  /** Writes a change to the store (CatalogStore.write) and serves it in this process before resolving. */
  write(this: void, w: CatalogWrite, cond: WriteIf, firstVersion: number): Promise<StoredModel | undefined>;
  /**
   * The models now, as one array that stays the same object (its contents replaced in one
   * synchronous step on each change): holders of the core's `catalog` see the current models.
   */
  models: readonly CatalogModel[];
  /** Where each model comes from, kept current the same way. */
  sources: ReadonlyMap<string, CatalogSource>;
  /** The catalog file's (or built-in) models, before any stored change. */
  file: LoadedCatalog;
  close(): void;
}

export interface LiveCatalogOptions {
  file: LoadedCatalog;
  store: CatalogStore;
  /** How often the store's change counter is read (0: never; the CLI reads the store once). */
  pollMs: number;
  /** A failed read of the store (told once until one succeeds), or a stored row left out. */
  onError?: (err: Error) => void;
}

export function liveCatalog(opts: LiveCatalogOptions): LiveCatalog {
  const { store } = opts;
  const tell = opts.onError ?? (() => undefined);
  let snapshot = effectiveCatalog(opts.file, []);
  const models: CatalogModel[] = [...snapshot.models];
  const sources = new Map(snapshot.sources);
  let failing = false;
  let loaded = false;

  const swap = (next: CatalogSnapshot) => {
    snapshot = next;
    models.splice(0, models.length, ...next.models);
    sources.clear();
    for (const [id, s] of next.sources) sources.set(id, s);
  };
  const load = async () => {
    try {
      if (loaded && (await store.generation()) === snapshot.generation) return;
      const rows = await store.list();
      swap(
        effectiveCatalog(opts.file, rows, (id, error) => tell(new Error(`model catalog: the stored model ${id} is left out: ${error}`))),
      );
      loaded = true;
      failing = false;
    } catch (err) {
      if (!failing) tell(err as Error);
      failing = true;
    }
  };
  // One read at a time; a refresh asked for during one runs after it (the write it follows may have come after that read began).
  let chain: Promise<void> = Promise.resolve();
  const refresh = () => (chain = chain.then(load));
  let polling = false;
  const timer =
    opts.pollMs > 0
      ? setInterval(() => {
          if (polling) return;
          polling = true;
          void refresh().finally(() => (polling = false));
        }, opts.pollMs)
      : undefined;
  timer?.unref();
  return {
    current: () => snapshot,
    ready: refresh(),
    refresh,
    write: async (w, cond, firstVersion) => {
      const row = await store.write(w, cond, firstVersion);
      if (row) await refresh();
      return row;
    },
    models,
    sources,
    file: opts.file,
    close: () => clearInterval(timer),
  };
}
