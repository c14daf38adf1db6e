import type { ObjectRecord } from '../ports';
import type { Json, JsonObject, ObjectFields } from '../types';

/** Columns of `search_objects o` read back as an ObjectRecord. */
export const OBJECT_COLUMNS = `o.seq, o.id, o.tenant, o.title, o.file_name, o.file_extension, o.object_type, o.size, o.ext_user_id_ref,
  o.tags, o.folders, o.repos, o.kvp, o.taxonomy, o.system_metadata, o.custom_metadata, o.media_metadata, o.source_system_metadata,
  o.created_by, o.updated_by, o.is_private, o.chunk_count, o.created_at, o.updated_at, o.deleted_at`;

export interface ObjectRow {
  seq: string;
  id: string;
  tenant: string;
  title: string;
  file_name: string | null;
  file_extension: string | null;
  object_type: string;
  size: string;
  ext_user_id_ref: string | null;
  tags: string[];
  folders: string[];
  repos: string[];
  kvp: JsonObject;
  taxonomy: Json;
  system_metadata: JsonObject;
  custom_metadata: JsonObject;
  media_metadata: JsonObject;
  source_system_metadata: JsonObject;
  created_by: string;
  updated_by: string;
  is_private: boolean;
  chunk_count: number;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
}

/** JSON columns arrive parsed; BIGINTs as text. */
export const toObject = (r: ObjectRow): ObjectRecord => ({
  seq: Number(r.seq),
  id: r.id,
  tenant: r.tenant,
  title: r.title,
  fileName: r.file_name,
  fileExtension: r.file_extension,
  objectType: r.object_type,
  size: Number(r.size),
  extUserIdRef: r.ext_user_id_ref,
  tags: r.tags,
  folders: r.folders,
  repos: r.repos,
  kvp: r.kvp,
  taxonomy: r.taxonomy,
  systemMetadata: r.system_metadata,
  customMetadata: r.custom_metadata,
  mediaMetadata: r.media_metadata,
  sourceSystemMetadata: r.source_system_metadata,
  createdBy: r.created_by,
  updatedBy: r.updated_by,
  isPrivate: r.is_private,
  chunkCount: r.chunk_count,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  deletedAt: r.deleted_at,
});

/** The caller-settable columns, in the order of `fieldValues`. */
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
  isPrivate,
];
