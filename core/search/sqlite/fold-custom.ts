import { statements, type Db } from '../../shared/sqlite';
import { foldCustom } from '../custom-metadata';
import { objectTerms } from '../terms';
import { ftsTags } from './objects';
import { OBJECT_COLUMNS, toObject } from './rows';

const FLAG = 'custom_metadata_folded';

/**
 * Once per search.db: objects stored before custom_metadata's tags, kvp and taxonomy became the
 * object's own (see ../custom-metadata.ts) get them folded in, as a new object would, with their
 * index rows rewritten, so a filter on `custom_metadata.tags` still finds them. Their `updated_*`
 * stay: nothing the caller gave changed. One IMMEDIATE transaction that checks the flag again, so
 * processes opening the file at once fold it once.
 */
export function foldLegacyCustomMetadata(db: Db): number {
  const s = statements(db);
  const done = s.one('SELECT value FROM meta WHERE key = ?', (r) => r.value as number);
  if (done(FLAG)) return 0;
  const legacy = s.many(
    `SELECT ${OBJECT_COLUMNS} FROM objects o WHERE o.deleted_at IS NULL AND (json_type(o.custom_metadata, '$.tags') IS NOT NULL
    OR json_type(o.custom_metadata, '$.kvp') IS NOT NULL OR json_type(o.custom_metadata, '$.taxonomy') IS NOT NULL)`,
    toObject,
  );
  const setFields = s.run('UPDATE objects SET tags = ?, kvp = ?, taxonomy = ?, custom_metadata = ? WHERE seq = ?');
  const deleteFts = s.run('DELETE FROM object_fts WHERE rowid = ?');
  const insertFts = s.run('INSERT INTO object_fts (rowid, title, file_name, tags) VALUES (?, ?, ?, ?)');
  const deleteTerms = s.run('DELETE FROM terms WHERE object_seq = ?');
  const insertTerm = s.run('INSERT OR IGNORE INTO terms (field, value, object_seq) VALUES (?, ?, ?)');
  const recordChange = s.run('INSERT INTO changes (tenant, object_seq) SELECT tenant, seq FROM objects WHERE seq = ?');
  const setFlag = s.run('INSERT OR IGNORE INTO meta (key, value) VALUES (?, 1)');
  return db
    .transaction(() => {
      if (done(FLAG)) return 0;
      const rows = legacy();
      for (const o of rows) {
        const f = { ...o, ...foldCustom({ tags: o.tags, kvp: o.kvp, taxonomy: o.taxonomy, customMetadata: o.customMetadata }) };
        setFields(JSON.stringify(f.tags), JSON.stringify(f.kvp), JSON.stringify(f.taxonomy), JSON.stringify(f.customMetadata ?? {}), o.seq);
        deleteFts(o.seq);
        insertFts(o.seq, f.title, f.fileName ?? '', ftsTags(f));
        deleteTerms(o.seq);
        for (const [field, value] of objectTerms(f)) insertTerm(field, value, o.seq);
        recordChange(o.seq);
      }
      setFlag(FLAG);
      return rows.length;
    })
    .immediate();
}
