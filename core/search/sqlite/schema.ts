/**
 * search.db, the embedded object repository and index (SQLite in the data directory).
 *
 * - `objects`: one row per object with every field of the spec; JSON columns hold arrays and the
 *   metadata objects; `seq` is the compact number the indexes refer to. Soft delete sets deleted_at.
 * - `object_text`: the extracted text, apart so scans of `objects` stay small.
 * - `chunks`: the passages (AUTOINCREMENT: ids only grow, so other processes catch up by id).
 * - `chunk_fts`: FTS5 over chunk text and the object's title (BM25; porter stemming; contentless,
 *   the text lives in `chunks`). `object_fts`: title, file name and tags, for basic search.
 * - `terms`: every filterable value flattened to (field, value): tags, folders, repos, object type,
 *   extension, file name, and the leaves of kvp, taxonomy and the four metadata objects. Filters are
 *   index lookups inside the search query; aggregations group it.
 * - `vectors`: one embedding per chunk, tagged with the embedder that made it.
 * - `meta`: counters other processes watch (the vectors' generation, bumped by `platform reindex`).
 * - `changes` (2): objects changed or deleted after they were added, in order, so every process's
 *   in-memory indexes (lexical, vectors) catch up with writes made by the others.
 */
const TOKENIZE = `tokenize = 'porter unicode61 remove_diacritics 2'`;

export const SEARCH_MIGRATIONS = [
  `
  CREATE TABLE objects (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    tenant TEXT NOT NULL,
    title TEXT NOT NULL,
    file_name TEXT,
    file_extension TEXT,
    object_type TEXT NOT NULL,
    size INTEGER NOT NULL,
    ext_user_id_ref TEXT,
    tags TEXT NOT NULL,
    folders TEXT NOT NULL,
    repos TEXT NOT NULL,
    kvp TEXT NOT NULL,
    taxonomy TEXT NOT NULL,
    system_metadata TEXT NOT NULL,
    custom_metadata TEXT NOT NULL,
    media_metadata TEXT NOT NULL,
    source_system_metadata TEXT NOT NULL,
    created_by TEXT NOT NULL,
    updated_by TEXT NOT NULL,
    is_private INTEGER NOT NULL DEFAULT 0,
    source_key TEXT,
    content_hash TEXT,
    chunk_count INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    deleted_at INTEGER
  );
  CREATE INDEX objects_tenant ON objects (tenant, deleted_at);
  CREATE UNIQUE INDEX objects_source ON objects (tenant, source_key) WHERE source_key IS NOT NULL AND deleted_at IS NULL;
  CREATE TABLE object_text (seq INTEGER PRIMARY KEY REFERENCES objects (seq), content TEXT NOT NULL);
  CREATE TABLE chunks (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    object_seq INTEGER NOT NULL REFERENCES objects (seq),
    idx INTEGER NOT NULL,
    start_offset INTEGER NOT NULL,
    end_offset INTEGER NOT NULL,
    text TEXT NOT NULL
  );
  CREATE INDEX chunks_object ON chunks (object_seq, idx);
  CREATE VIRTUAL TABLE chunk_fts USING fts5 (title, text, content = '', contentless_delete = 1, ${TOKENIZE});
  CREATE VIRTUAL TABLE object_fts USING fts5 (title, file_name, tags, content = '', contentless_delete = 1, ${TOKENIZE});
  CREATE TABLE terms (
    field TEXT NOT NULL,
    value TEXT NOT NULL,
    object_seq INTEGER NOT NULL REFERENCES objects (seq),
    PRIMARY KEY (field, value, object_seq)
  ) WITHOUT ROWID;
  CREATE INDEX terms_object ON terms (object_seq, field);
  CREATE TABLE vectors (
    chunk_id INTEGER PRIMARY KEY REFERENCES chunks (id),
    embedder TEXT NOT NULL,
    vector BLOB NOT NULL
  );
  CREATE TABLE meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
  INSERT INTO meta (key, value) VALUES ('vectors_generation', 1);
  `,
  `
  CREATE TABLE changes (id INTEGER PRIMARY KEY AUTOINCREMENT, tenant TEXT NOT NULL, object_seq INTEGER NOT NULL);
  CREATE INDEX changes_tenant ON changes (tenant, id);
  `,
];
