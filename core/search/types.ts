/**
 * The search service's domain: objects of the repository, the filters every search takes, what a
 * search asks and what it returns. Names are camelCase here; the REST face speaks the spec's wire
 * names (snake_case), the subgraph its GraphQL names.
 */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** What a caller may set on an object (create and patch). */
export interface ObjectFields {
  title: string;
  fileName: string | null;
  fileExtension: string | null;
  objectType: string;
  tags: string[];
  folders: string[];
  repos: string[];
  kvp: JsonObject;
  taxonomy: Json;
  extUserIdRef: string | null;
  customMetadata: JsonObject;
  mediaMetadata: JsonObject;
  sourceSystemMetadata: JsonObject;
  /** Only `is_private` and licence information are the caller's; the rest the service keeps. */
  systemMetadata: JsonObject;
}

/** An object of the repository as the service returns it. */
export interface StoredObject extends ObjectFields {
  id: string;
  tenant: string;
  /** Bytes of the original file, or of the text given. */
  size: number;
  createdBy: string;
  updatedBy: string;
  isPrivate: boolean;
  createdAt: Date;
  updatedAt: Date;
  deletedAt: Date | null;
  chunkCount: number;
}

export interface NewObject extends Partial<ObjectFields> {
  content: string;
  size?: number;
  /** `platform ingest`: the file's path, so a re-run skips or replaces it instead of adding it again. */
  sourceKey?: string;
  contentHash?: string;
}

/** Who searches or writes: the caller's tenant, and its subject (which sees its own private objects). */
export interface Scope {
  tenant: string;
  subject: string;
}

export type DateRange = [Date | null, Date | null];

/** Every filter of v1 and v2; an absent or empty filter means no filter. Values are OR-ed within a filter, filters AND-ed. */
export interface Filters {
  objectIds?: string[];
  tags?: string[];
  folders?: string[];
  repos?: string[];
  objectTypes?: string[];
  fileExtensions?: string[];
  fileNames?: string[];
  /** Case-insensitive substring of the title. */
  title?: string;
  size?: number;
  extUserIdRef?: string;
  kvp?: JsonObject;
  taxonomy?: Json;
  systemMetadata?: JsonObject;
  customMetadata?: JsonObject;
  mediaMetadata?: JsonObject;
  sourceSystemMetadata?: JsonObject;
  createdBetween?: DateRange;
  modifiedBetween?: DateRange;
  deletedBetween?: DateRange;
}

export type SearchMode = 'fulltext' | 'semantic' | 'hybrid' | 'basic';
export type SortField = 'title' | 'updated_at';

export interface SearchRequest {
  mode: SearchMode;
  query: string;
  filters: Filters;
  offset: number;
  limit: number;
  /** Results scoring under this (0..1) are left out. */
  minScore?: number;
  /** Relevance when absent. */
  sort?: { by: SortField; order: 'asc' | 'desc' };
  /** Hybrid: re-score the fused candidates with the re-ranker. */
  rerank?: boolean;
  /** Basic search: the words as one phrase. */
  exact?: boolean;
  /** Basic search: match the content too, not only title, file name and tags. */
  anywhere?: boolean;
  highlight?: boolean;
}

export interface Highlight {
  field: 'title' | 'text';
  fragment: string;
}

export interface SearchHit {
  object: StoredObject;
  score: number;
  snippet: string;
  highlights?: Highlight[];
}

export interface Bucket {
  key: string;
  doc_count: number;
}

export type Aggregations = Record<'object_type' | 'file_extension' | 'tags' | 'repos' | 'folders', Bucket[]>;

export interface SearchPage {
  total: number;
  hits: SearchHit[];
  aggregations: Aggregations;
}

export interface PassageRequest {
  query: string;
  filters: Filters;
  offset: number;
  limit: number;
  /** hybrid (default): full text and vectors fused; semantic: vectors only (k-nearest neighbours). */
  mode?: 'hybrid' | 'semantic';
  /** Re-score the best candidates with the re-ranker. */
  rerank?: boolean;
}

export interface Passage {
  objectId: string;
  chunkId: number;
  chunkIndex: number;
  text: string;
  score: number;
  title: string;
  fileName: string | null;
}

export interface PassagePage {
  total: number;
  passages: Passage[];
}

/** A page of one object's passages in order (a document's reader): `limit` 1..200 (default 50), `after` the previous page's `nextCursor`. */
export interface ObjectPassagesRequest {
  id: string;
  limit?: number;
  after?: string;
}

/** One passage of an object, as it was cut (`chunkIndex` from 0). */
export interface ObjectPassage {
  chunkId: number;
  chunkIndex: number;
  text: string;
}

export interface ObjectPassagePage {
  items: ObjectPassage[];
  /** The object's passages over every page. */
  total: number;
  /** The next page's `after`; null on the last page. */
  nextCursor: string | null;
}
