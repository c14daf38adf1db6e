/**
 * The search service's tables in a shared PostgreSQL database (`search_` before each name; the
 * scope `search` in platform_migrations), the same repository as search.db (../sqlite/schema.ts):
 *
 * - `search_objects`: one row per object, every field of the spec; JSON columns are `JSON`, kept as
 *   given (key order and all, as SQLite keeps the text); `fields_fts` is the basic search's
 *   full text of title (weight A), file name (B) and tags (C), emptied on delete.
 * - `search_object_text`, `search_chunks` (passages; `fts` is title A and text B, emptied on
 *   delete; `tenant` copied so a tenant's feed is one index range), `search_terms` (filterable
 *   values, as in search.db), `search_vectors` (one per passage, BYTEA in the blob format of
 *   ../vector-blobs.ts, tagged with its embedder).
 * - `search_tenants`: each tenant's count of live objects. Every write of a tenant first locks its
 *   row (so the quota holds across replicas and a tenant's ids are committed in the order they
 *   were taken: a reader that catches up "after id N" misses nothing).
 * - `search_changes`: the durable change feed. Every write appends to it (`kind`: insert, update,
 *   delete, vectors, generation) and notifies `search_changes` with the row's id in the same
 *   transaction; replicas' in-memory indexes follow it (a replica that was down reads on from
 *   where it was).
 * - `search_settings`: counters replicas watch (the vectors' generation, bumped by `platform reindex`).
 */
export const SEARCH_PG_MIGRATIONS = [
  `
  CREATE TABLE search_tenants (tenant TEXT PRIMARY KEY, live BIGINT NOT NULL DEFAULT 0);
  CREATE TABLE search_objects (
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    tenant TEXT NOT NULL,
    title TEXT NOT NULL,
    file_name TEXT,
    file_extension TEXT,
    object_type TEXT NOT NULL,
    size BIGINT NOT NULL,
    ext_user_id_ref TEXT,
    tags JSON NOT NULL,
    folders JSON NOT NULL,
    repos JSON NOT NULL,
    kvp JSON NOT NULL,
    taxonomy JSON NOT NULL,
    system_metadata JSON NOT NULL,
    custom_metadata JSON NOT NULL,
    media_metadata JSON NOT NULL,
    source_system_metadata JSON NOT NULL,
    created_by TEXT NOT NULL,
    updated_by TEXT NOT NULL,
    is_private BOOLEAN NOT NULL DEFAULT false,
    source_key TEXT,
    content_hash TEXT,
    chunk_count INTEGER NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL,
    deleted_at TIMESTAMPTZ,
    fields_fts TSVECTOR
  );
  CREATE INDEX search_objects_live ON search_objects (tenant, updated_at DESC, seq DESC) WHERE deleted_at IS NULL;
  CREATE UNIQUE INDEX search_objects_source ON search_objects (tenant, source_key) WHERE source_key IS NOT NULL AND deleted_at IS NULL;
  CREATE INDEX search_objects_fts ON search_objects USING GIN (fields_fts);
  CREATE TABLE search_object_text (seq BIGINT PRIMARY KEY REFERENCES search_objects (seq), content TEXT NOT NULL);
  CREATE TABLE search_chunks (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    object_seq BIGINT NOT NULL REFERENCES search_objects (seq),
    tenant TEXT NOT NULL,
    idx INTEGER NOT NULL,
    start_offset INTEGER NOT NULL,
    end_offset INTEGER NOT NULL,
    text TEXT NOT NULL,
    fts TSVECTOR
  );
  CREATE INDEX search_chunks_object ON search_chunks (object_seq, idx);
  CREATE INDEX search_chunks_tenant ON search_chunks (tenant, id);
  CREATE INDEX search_chunks_fts ON search_chunks USING GIN (fts);
  CREATE TABLE search_terms (
    field TEXT NOT NULL,
    value TEXT NOT NULL,
    object_seq BIGINT NOT NULL REFERENCES search_objects (seq),
    PRIMARY KEY (field, value, object_seq)
  );
  CREATE INDEX search_terms_object ON search_terms (object_seq, field);
  CREATE TABLE search_vectors (
    chunk_id BIGINT PRIMARY KEY REFERENCES search_chunks (id),
    embedder TEXT NOT NULL,
    vector BYTEA NOT NULL
  );
  CREATE TABLE search_changes (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    tenant TEXT NOT NULL,
    object_seq BIGINT,
    kind TEXT NOT NULL
  );
  CREATE INDEX search_changes_tenant ON search_changes (tenant, id) WHERE kind IN ('update', 'delete');
  CREATE TABLE search_settings (key TEXT PRIMARY KEY, value BIGINT NOT NULL);
  INSERT INTO search_settings (key, value) VALUES ('vectors_generation', 1);
  `,
];
