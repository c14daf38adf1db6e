import type { Embedder } from '../shared/text/embedder';
import type { Chunk } from './chunker';
import type { Filters, JsonObject, ObjectFields, Scope, SortField, StoredObject } from './types';

/**
 * What the search domain needs from its store, in its own terms: objects of a tenant, numbered by
 * `seq` (the compact number every index refers to); passages numbered by chunk id; both only grow,
 * so a reader catches up from the last number it saw. Adapters: SQLite (search.db, core/search/
 * sqlite/) and PostgreSQL (core/search/postgres/, shared by replicas). Each passes the contract
 * tests of test/core/search/store-contracts.ts. Every method is asynchronous but `dataVersion`,
 * which searches ask before each query and must stay cheap: each adapter keeps it in memory.
 */

/** A stored object with its `seq`. */
export interface ObjectRecord extends StoredObject {
  seq: number;
}

/** An object ready to be written: fields, text, passages and their vectors. */
export interface PreparedObject {
  id: string;
  tenant: string;
  fields: ObjectFields;
  isPrivate: boolean;
  size: number;
  content: string;
  chunks: Chunk[];
  /** One per chunk, in order. */
  vectors: Float32Array[];
  embedderId: string;
  /** Store the vectors as their nonzero entries (the embedder's vectors are sparse). */
  sparseVectors?: boolean;
  createdBy: string;
  now: number;
  sourceKey?: string;
  contentHash?: string;
}

export interface SourceOutcome {
  id: string;
  outcome: 'created' | 'replaced' | 'unchanged';
}

/** The objects a search may reach: the scope's tenant, live objects, private ones only of the scope's subject, then the filters (filters.ts says what each means). */
export interface Selection {
  scope: Scope;
  filters: Filters;
}

/** Words to match in the full-text index: `all` each as a prefix, AND-ed; `phrase` all of them in order, adjacent. */
export interface TextQuery {
  mode: 'all' | 'phrase';
  words: string[];
}

/** An object a full-text query matched; `raw` is a relevance, larger is better, comparable within one answer. */
export interface Match {
  seq: number;
  raw: number;
  /** The object's best-matching passage, when the match was over passages. */
  chunkId: number | null;
}

/** How vectors are kept: which embedder made them, and their shape. */
export type VectorFormat = Pick<Embedder, 'id' | 'dimensions' | 'sparse'>;

/** The repository's writes, each one transaction, and its lookups by id. */
export interface ObjectStore {
  /** Writes the object, its text, passages, vectors and index entries; throws ObjectQuotaReached when its tenant already holds `maxPerTenant` live objects (counted by every process). Returns its seq. */
  insert(p: PreparedObject, maxPerTenant?: number): Promise<number>;
  /**
   * `platform ingest`: keeps, replaces or adds the object of `p.sourceKey`, decided inside the write
   * transaction, so parallel runs over one file agree: one adds it, the others find it. A changed
   * file's old version is soft-deleted (its system metadata from `deletedSystem`) in the same transaction.
   */
  putSource(
    p: PreparedObject & { sourceKey: string },
    deletedSystem: (old: ObjectRecord) => JsonObject,
    maxPerTenant?: number,
  ): Promise<SourceOutcome>;
  /** Replaces the caller's fields; `titleChanged` says the passages, indexed with the title, need it too. */
  update(seq: number, fields: ObjectFields, isPrivate: boolean, by: string, now: number, titleChanged: boolean): Promise<void>;
  /** Soft delete: the object stays for audit, no search or lookup returns it again. False when it was already gone. */
  remove(seq: number, systemMetadata: JsonObject, by: string, now: number): Promise<boolean>;
  /** A live object of the tenant (private ones too: the domain decides who sees them). */
  get(tenant: string, id: string): Promise<ObjectRecord | undefined>;
  /**
   * The object's passages with chunk index above `afterIndex` (-1: from the first), in index order,
   * at most `limit` (a document's reader pages through them; the domain checked who may see it).
   */
  chunksOf(seq: number, afterIndex: number, limit: number): Promise<{ id: number; idx: number; text: string }[]>;
  /** The tenant's live object ingested from `sourceKey`. */
  bySource(tenant: string, sourceKey: string): Promise<{ id: string; seq: number; contentHash: string | null } | undefined>;
}

/** The searches' reads. Filtering happens inside each query, before ranking and paging. */
export interface IndexQueries {
  /** Objects whose passages (text, and title twice as heavy) match, each with its best passage, best first. */
  chunks(sel: Selection, q: TextQuery): Promise<Match[]>;
  /** Objects whose title, file name or tags match (basic search), best first. */
  fields(sel: Selection, q: TextQuery): Promise<Match[]>;
  /** Seqs of every object the selection lets through, last updated first (ties: newest first). */
  listing(sel: Selection): Promise<number[]>;
  /** Seqs of every object the selection lets through (the candidates of the in-memory indexes). */
  allowed(sel: Selection): Promise<Set<number>>;
  /** `seqs` ordered by a field (title without regard to case), ties newest first. */
  sorted(seqs: readonly number[], by: SortField, order: 'asc' | 'desc'): Promise<number[]>;
  /** The objects of these seqs (deleted ones too: seqs come from a query that already chose them). */
  objects(seqs: readonly number[]): Promise<Map<number, ObjectRecord>>;
  /** The first passage of each object, for snippets of objects matched without a passage. */
  firstChunks(seqs: readonly number[]): Promise<Map<number, { id: number; text: string }>>;
  chunkTexts(ids: readonly number[]): Promise<Map<number, { seq: number; idx: number; text: string }>>;
  /** The objects' filterable values (terms.ts) of these fields, for aggregations. */
  facets(seqs: readonly number[], fields: readonly string[]): Promise<{ seq: number; field: string; value: string }[]>;
}

/** What the in-memory indexes follow to stay in step with writes of every process. */
export interface IndexFeeds {
  /**
   * Changes whenever the store may have changed: at once after a write of this handle, and soon
   * after another process's (SQLite: at once, its data_version; PostgreSQL: when its notification
   * arrives, or at the next poll of the changes table). Never on a read. Synchronous and cheap.
   */
  dataVersion(): string;
  /** Tenants holding live objects. */
  tenants(): Promise<string[]>;
  /** The tenant's passages of live objects with ids above `afterId`, in id order, at most `limit`. */
  chunksSince(tenant: string, afterId: number, limit: number): Promise<{ id: number; seq: number; text: string; title: string }[]>;
  /** Objects of the tenant updated or deleted after they were added, in order of the change, after change `afterId`. */
  changesSince(tenant: string, afterId: number): Promise<{ id: number; seq: number }[]>;
  /** The tenant's latest change id (0 when none): where a new reader starts. */
  lastChange(tenant: string): Promise<number>;
  /** The live object's passages with ids up to `upToId`, in order; none once it is deleted. */
  liveChunks(seq: number, upToId: number): Promise<{ id: number; text: string; title: string }[]>;
  /** The tenant's vectors made by `format.id` with chunk ids above `afterId`, in id order, at most `limit` (deleted objects' may be among them). */
  vectorsSince(
    tenant: string,
    afterId: number,
    format: VectorFormat,
    limit: number,
  ): Promise<{ id: number; seq: number; vector: Float32Array }[]>;
  /** Moves when every vector was rewritten (`platform reindex`): readers start over. */
  vectorsGeneration(): Promise<number>;
}

/** What `platform ingest` and `platform reindex` need beyond the object store. */
export interface AdminStore {
  /** The tenant's live object ingested from `sourceKey` with exactly these bytes. */
  sameFile(tenant: string, sourceKey: string, contentHash: string): Promise<string | undefined>;
  /**
   * Every passage of every tenant with ids above `afterId`, in id order, at most `limit` (deleted
   * objects' may be among them); with `tenant`, only that tenant's passages of live objects.
   */
  chunkPage(afterId: number, limit: number, tenant?: string): Promise<{ id: number; text: string; title: string }[]>;
  /** How many passages `chunkPage` goes through (with `tenant`, that tenant's). */
  chunkCount(tenant?: string): Promise<number>;
  /** What tenants hold (the admin API): every tenant that has objects, or only `tenant` (zeros when it has none). */
  tenantDocuments(tenant?: string): Promise<TenantDocuments[]>;
  /** Sets these passages' vectors in one transaction: a passage has one vector, so another embedder's is replaced. */
  writeVectors(format: VectorFormat, vectors: readonly { chunkId: number; vector: Float32Array }[]): Promise<void>;
  bumpVectorsGeneration(): Promise<void>;
  /**
   * Deletes the change feed's rows but its newest `keep` (a background job): a reader more than
   * `keep` changes behind would miss some, so keep far more than any running reader lags. Returns how many.
   */
  pruneChanges(keep: number): Promise<number>;
}

/** A tenant's objects, counted: live ones (private among them), soft-deleted ones, their passages, bytes, repos and folders. */
export interface TenantDocuments {
  tenant: string;
  documents: number;
  privateDocuments: number;
  deletedDocuments: number;
  passages: number;
  /** The live objects' sizes added up. */
  bytes: number;
  /** Distinct repos and folders of live objects. */
  repos: number;
  folders: number;
  /** When a live object last changed (epoch ms), null when none. */
  lastUpdatedAt: number | null;
}

/** Everything the search service keeps, behind its ports (one store per engine: SQLite or PostgreSQL). */
export interface SearchStore {
  objects: ObjectStore;
  queries: IndexQueries;
  feeds: IndexFeeds;
  admin: AdminStore;
  close(): Promise<void>;
}

/**
 * The adapters of the search service's stores, as the composition root picked them
 * (services/search/stores.ts): `sqliteSearchStores(file)` (core/search/sqlite) or
 * `pgSearchStores(pool)` (core/search/postgres). Closing the core closes them.
 */
export type SearchStores = SearchStore;
