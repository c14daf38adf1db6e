import type { z } from 'zod';
import type { ObjectMetadata, V2Filters } from '../../core/search/inputs';
import type { Filters, NewObject, ObjectPassagePage, Passage, SearchHit, SearchPage, StoredObject } from '../../core/search/types';

/**
 * Between the spec's wire names (snake_case, DECISIONS' result items and envelope) and the core's.
 */
export const objectView = (o: StoredObject) => ({
  object_id: o.id,
  title: o.title,
  file_name: o.fileName,
  file_extension: o.fileExtension,
  object_type: o.objectType,
  size: o.size,
  repos: o.repos,
  folders: o.folders,
  tags: o.tags,
  kvp: o.kvp,
  taxonomy: o.taxonomy,
  ext_user_id_ref: o.extUserIdRef,
  system_metadata: o.systemMetadata,
  custom_metadata: o.customMetadata,
  media_metadata: o.mediaMetadata,
  source_system_metadata: o.sourceSystemMetadata,
  created_at: o.createdAt.toISOString(),
  updated_at: o.updatedAt.toISOString(),
});

export const hitView = (h: SearchHit) => {
  const { object_id, title, file_name, file_extension, object_type, size, ...rest } = objectView(h.object);
  return {
    object_id,
    title,
    file_name,
    file_extension,
    object_type,
    size,
    score: h.score,
    snippet: h.snippet,
    ...(h.highlights ? { highlights: h.highlights } : {}),
    ...rest,
  };
};

/** DECISIONS' success envelope; both aggregation names carry the same object. */
export const envelope = (page: SearchPage) => ({
  status: 'success',
  message: page.total ? 'Documents found' : 'No documents found',
  result_count: page.total,
  result: page.hits.map(hitView),
  aggregation: page.aggregations,
  aggregations: page.aggregations,
});

export const passageView = (p: Passage) => ({
  object_id: p.objectId,
  chunk_id: p.chunkId,
  chunk_index: p.chunkIndex,
  text: p.text,
  score: p.score,
  title: p.title,
  file_name: p.fileName,
});

/** A page of one object's passages, in the search envelope (`result_count`: all its passages) with the next page's cursor. */
export const objectPassagesView = (page: ObjectPassagePage) => ({
  status: 'success',
  message: page.items.length ? 'Passages found' : 'No passages found',
  result_count: page.total,
  result: page.items.map((p) => ({ chunk_id: p.chunkId, chunk_index: p.chunkIndex, text: p.text })),
  next_cursor: page.nextCursor,
});

/** v1 `search` and `search_lite`: the passages as one string, ready for a prompt. */
export function dataString(passages: Passage[]): string {
  return passages.map((p, i) => `[${i + 1}] ${p.title} (object_id: ${p.objectId}, score: ${p.score.toFixed(3)})\n${p.text}`).join('\n\n');
}

type WireFilters = z.output<typeof V2Filters>;

export const filtersFrom = (b: Partial<WireFilters>): Filters => ({
  objectIds: b.object_ids,
  tags: b.tags,
  folders: b.folders,
  repos: b.repos,
  objectTypes: b.object_type,
  fileExtensions: b.file_extension,
  fileNames: b.file_name,
  title: b.title,
  size: b.size,
  extUserIdRef: b.ext_user_id_ref,
  kvp: b.kvp,
  taxonomy: b.taxonomy,
  systemMetadata: b.system_metadata,
  customMetadata: b.custom_metadata,
  mediaMetadata: b.media_metadata,
  sourceSystemMetadata: b.source_system_metadata,
});

export const objectFrom = (b: z.output<typeof ObjectMetadata>): Omit<NewObject, 'content'> => ({
  title: b.title,
  fileName: b.file_name,
  objectType: b.object_type,
  fileExtension: b.file_extension,
  tags: b.tags,
  folders: b.folders,
  repos: b.repos,
  kvp: b.kvp,
  taxonomy: b.taxonomy,
  extUserIdRef: b.ext_user_id_ref,
  systemMetadata: b.system_metadata,
  customMetadata: b.custom_metadata,
  mediaMetadata: b.media_metadata,
  sourceSystemMetadata: b.source_system_metadata,
});
