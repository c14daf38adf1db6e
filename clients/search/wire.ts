import type { Aggregations, Filters, Passage, SearchHit, SearchPage, StoredObject } from '../../core/search/types';
import { BadRequest } from '../../core/shared/errors';

/**
 * The search service's wire shapes read back into the core's (the inverse of rest/search/wire.ts).
 * Over REST an object does not say its tenant (the caller's) nor its passage count; the client
 * fills `tenant` from the caller and leaves `chunkCount` at 0.
 */
export interface ObjectWire {
  object_id: string;
  title: string;
  file_name: string | null;
  file_extension: string | null;
  object_type: string;
  size: number;
  repos: string[];
  folders: string[];
  tags: string[];
  kvp: StoredObject['kvp'];
  taxonomy: StoredObject['taxonomy'];
  ext_user_id_ref: string | null;
  system_metadata: Record<string, unknown> & { created_by?: string; updated_by?: string; is_private?: boolean; deleted_at?: string };
  custom_metadata: StoredObject['customMetadata'];
  media_metadata: StoredObject['mediaMetadata'];
  source_system_metadata: StoredObject['sourceSystemMetadata'];
  created_at: string;
  updated_at: string;
}

export type HitWire = ObjectWire & { score: number; snippet: string; highlights?: SearchHit['highlights'] };

export interface EnvelopeWire {
  result_count: number;
  result: HitWire[];
  aggregations: Aggregations;
}

export interface PassageWire {
  object_id: string;
  chunk_id: number;
  chunk_index: number;
  text: string;
  score: number;
  title: string;
  file_name: string | null;
}

export const objectFromWire = (o: ObjectWire, tenant: string): StoredObject => ({
  id: o.object_id,
  tenant,
  title: o.title,
  fileName: o.file_name,
  fileExtension: o.file_extension,
  objectType: o.object_type,
  size: o.size,
  repos: o.repos,
  folders: o.folders,
  tags: o.tags,
  kvp: o.kvp,
  taxonomy: o.taxonomy,
  extUserIdRef: o.ext_user_id_ref,
  systemMetadata: o.system_metadata as StoredObject['systemMetadata'],
  customMetadata: o.custom_metadata,
  mediaMetadata: o.media_metadata,
  sourceSystemMetadata: o.source_system_metadata,
  createdBy: o.system_metadata.created_by ?? '',
  updatedBy: o.system_metadata.updated_by ?? '',
  isPrivate: o.system_metadata.is_private === true,
  createdAt: new Date(o.created_at),
  updatedAt: new Date(o.updated_at),
  deletedAt: o.system_metadata.deleted_at ? new Date(o.system_metadata.deleted_at) : null,
  chunkCount: 0,
});

export const pageFromWire = (e: EnvelopeWire, tenant: string): SearchPage => ({
  total: e.result_count,
  hits: e.result.map((h) => ({
    object: objectFromWire(h, tenant),
    score: h.score,
    snippet: h.snippet,
    ...(h.highlights ? { highlights: h.highlights } : {}),
  })),
  aggregations: e.aggregations,
});

export const passageFromWire = (p: PassageWire): Passage => ({
  objectId: p.object_id,
  chunkId: p.chunk_id,
  chunkIndex: p.chunk_index,
  text: p.text,
  score: p.score,
  title: p.title,
  fileName: p.file_name ?? null,
});

/** The v2 body of `filters`; the date ranges have no v2 field, so a filter on them cannot cross the hop. */
export function filtersToWire(f: Filters): Record<string, unknown> {
  const dated = (['createdBetween', 'modifiedBetween', 'deletedBetween'] as const).find((k) => f[k]);
  if (dated)
    throw new BadRequest(`The ${dated} filter has no v2 REST field; it needs the search service in this process`, {
      code: 'filter_not_remote',
    });
  return {
    object_ids: f.objectIds,
    tags: f.tags,
    folders: f.folders,
    repos: f.repos,
    object_type: f.objectTypes,
    file_extension: f.fileExtensions,
    file_name: f.fileNames,
    title: f.title,
    size: f.size,
    ext_user_id_ref: f.extUserIdRef,
    kvp: f.kvp,
    taxonomy: f.taxonomy,
    system_metadata: f.systemMetadata,
    custom_metadata: f.customMetadata,
    media_metadata: f.mediaMetadata,
    source_system_metadata: f.sourceSystemMetadata,
  };
}

/** `offset`/`limit` as v2's `page_no`/`page_size`: the offset must fall on a page boundary. */
export function pageOf(offset: number, limit: number): { page_no: number; page_size: number } {
  if (limit < 1 || offset % limit !== 0)
    throw new BadRequest(`An offset of ${offset} is not a page of ${limit} over REST`, { code: 'offset_not_page' });
  return { page_no: offset / limit + 1, page_size: limit };
}
