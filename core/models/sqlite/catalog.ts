import { statements, type Db, type Row } from '../../shared/sqlite';
import type { CatalogModel } from '../catalog/catalog';
import type { CatalogStore, StoredModel } from '../catalog/catalog-store';

const toStored = (r: Row): StoredModel => ({
  id: r.id as string,
  entry: r.entry === null ? null : (JSON.parse(r.entry as string) as CatalogModel),
  active: r.active === 1,
  version: r.version as number,
  updatedAt: r.updated_at as number,
  updatedBy: r.updated_by as string,
});

/**
 * The catalog's run-time changes in models.db (`model_catalog`), read by every worker of the
 * machine. Each write is one statement, its condition in its WHERE or ON CONFLICT clause.
 */
export function sqliteCatalogStore(db: Db): CatalogStore {
  const s = statements(db);
  const list = s.many('SELECT * FROM model_catalog ORDER BY id', toStored);
  const generation = s.one('SELECT coalesce(sum(version), 0) AS g FROM model_catalog', (r) => r.g as number);
  // @keep is 1 when the write keeps the row's entry (a change of state only); @version is a new row's, or the one an update expects.
  const upsert = s.one(
    `INSERT INTO model_catalog (id, entry, active, version, updated_at, updated_by) VALUES (@id, @entry, @active, @version, @at, @by)
    ON CONFLICT (id) DO UPDATE SET entry = CASE WHEN @keep THEN entry ELSE excluded.entry END, active = excluded.active,
      version = version + 1, updated_at = excluded.updated_at, updated_by = excluded.updated_by
    RETURNING *`,
    toStored,
  );
  const insert = s.one(
    `INSERT INTO model_catalog (id, entry, active, version, updated_at, updated_by) VALUES (@id, @entry, @active, @version, @at, @by)
    ON CONFLICT (id) DO NOTHING RETURNING *`,
    toStored,
  );
  const update = s.one(
    `UPDATE model_catalog SET entry = CASE WHEN @keep THEN entry ELSE @entry END, active = @active, version = version + 1,
      updated_at = @at, updated_by = @by
    WHERE id = @id AND version = @version RETURNING *`,
    toStored,
  );

  return {
    list: async () => list(),
    generation: async () => generation() ?? 0,
    write: async (w, cond, firstVersion) => {
      const row = {
        id: w.id,
        entry: w.entry === undefined ? null : JSON.stringify(w.entry),
        keep: w.entry === undefined ? 1 : 0,
        active: w.active ? 1 : 0,
        at: w.at,
        by: w.by,
      };
      if (cond === 'any') return upsert({ ...row, version: firstVersion });
      if (cond === 'absent') return insert({ ...row, version: firstVersion });
      return update({ ...row, version: cond.version });
    },
  };
}
