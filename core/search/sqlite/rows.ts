import { fromJson, type Row } from '../../shared/sqlite';
import type { ObjectRecord } from '../ports';
import type { Json, JsonObject, ObjectFields } from '../types';

/** Columns of `objects` read back as an ObjectRecord. */
export const OBJECT_COLUMNS = `o.seq, o.id, o.tenant, o.title, o.file_name, o.file_extension, o.object_type, o.size, o.ext_user_id_ref,
  o.tags, o.folders, o.repos, o.kvp, o.taxonomy, o.system_metadata, o.custom_metadata, o.media_metadata, o.source_system_metadata,
  o.created_by, o.updated_by, o.is_private, o.chunk_count, o.created_at, o.updated_at, o.deleted_at`;

export const toObject = (r: Row): ObjectRecord => ({
  seq: r.seq as number,
  id: r.id as string,
  tenant: r.tenant as string,
  title: r.title as string,
  fileName: (r.file_name as string | null) ?? null,
  fileExtension: (r.file_extension as string | null) ?? null,
  objectType: r.object_type as string,
  size: r.size as number,
  extUserIdRef: (r.ext_user_id_ref as string | null) ?? null,
  tags: fromJson<string[]>(r.tags as string),
  folders: fromJson<string[]>(r.folders as string),
  repos: fromJson<string[]>(r.repos as string),
  kvp: fromJson<JsonObject>(r.kvp as string),
  taxonomy: fromJson<Json>(r.taxonomy as string),
  systemMetadata: fromJson<JsonObject>(r.system_metadata as string),
  customMetadata: fromJson<JsonObject>(r.custom_metadata as string),
  mediaMetadata: fromJson<JsonObject>(r.media_metadata as string),
  sourceSystemMetadata: fromJson<JsonObject>(r.source_system_metadata as string),
  createdBy: r.created_by as string,
  updatedBy: r.updated_by as string,
  isPrivate: r.is_private === 1,
  chunkCount: r.chunk_count as number,
  createdAt: new Date(r.created_at as number),
  updatedAt: new Date(r.updated_at as number),
  deletedAt: r.deleted_at === null ? null : new Date(r.deleted_at as number),
});

/** The values of the caller-settable columns, in FIELD_COLUMNS order. */
export const FIELD_COLUMNS = [
  'title',
  'file_name',
  'file_extension',
  'object_type',
  'ext_user_id_ref',
  'tags',
  'folders',
  'repos',
  'kvp',
  'taxonomy',
  'system_metadata',
  'custom_metadata',
  'media_metadata',
  'source_system_metadata',
  'is_private',
] as const;

export const fieldValues = (f: ObjectFields, isPrivate: boolean): unknown[] => [
  f.title,
  f.fileName,
  f.fileExtension,
  f.objectType,
  f.extUserIdRef,
  JSON.stringify(f.tags),
  JSON.stringify(f.folders),
  JSON.stringify(f.repos),
  JSON.stringify(f.kvp),
  JSON.stringify(f.taxonomy),
  JSON.stringify(f.systemMetadata),
  JSON.stringify(f.customMetadata),
  JSON.stringify(f.mediaMetadata),
  JSON.stringify(f.sourceSystemMetadata),
  isPrivate ? 1 : 0,
];
