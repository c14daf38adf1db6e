import { z } from 'zod';
import { MAX_PAGE } from '../shared/admin/paging';
import { last, param } from '../shared/params';
import { parseJsonBounded } from '../shared/json-depth';
import type { Json } from './types';

/**
 * The search service's input rules. Each field's rule is one builder below; the REST face's schemas
 * use them under the spec's wire names (422 locates issues there), the subgraph's under the domain's
 * own names, which its GraphQL arguments share (BAD_USER_INPUT), so a bad value is refused for the
 * same reason on both. Absent and null filters mean no filter (DECISIONS); bounds protect the
 * service: page sizes, query length, list lengths, metadata depth.
 */
export const MAX_PAGE_SIZE = 100;
export const MAX_QUERY_CHARS = 1000;
export const MAX_LIST = 100;
export const MAX_METADATA_DEPTH = 8;

const depth = (v: unknown): number => (typeof v === 'object' && v !== null ? 1 + Math.max(0, ...Object.values(v).map(depth)) : 0);

/** A JSON object (JSON text in a query string) nested at most MAX_METADATA_DEPTH deep. */
export const jsonObject = () =>
  param.object().check(
    z.refine((v) => depth(v) <= MAX_METADATA_DEPTH, {
      message: `Value should be nested at most ${MAX_METADATA_DEPTH} levels deep`,
      params: { type: 'value_error' },
    }),
  ) as unknown as z.ZodType<Record<string, Json>>;

/** Taxonomy: an object, or a list of objects (one v1 table lists it so). */
export const taxonomy = () => z.union([jsonObject(), z.array(jsonObject()).max(MAX_LIST)]) as z.ZodType<Json>;

export const list = (maxChars = 512) =>
  param
    .array()
    .check(z.maxLength(MAX_LIST))
    .pipe(z.array(z.string().max(maxChars)));
export const queryString = (min = 1) => param.string().check(z.minLength(min), z.maxLength(MAX_QUERY_CHARS));
export const pageNo = () => param.int().check(z.gte(1)).default(1);
export const pageSize = (fallback: number, min = 1, max = MAX_PAGE_SIZE) => param.int().check(z.gte(min), z.lte(max)).default(fallback);
export const score = (fallback: number) => param.number().check(z.gte(0), z.lte(1)).default(fallback);

/** `sorting_by` and `order` (v2): `None` means by relevance. */
export const sortingBy = () => z.preprocess(last, z.enum(['None', 'title', 'updated_at'])).default('None');
export const order = () => z.preprocess(last, z.enum(['None', 'asc', 'desc'])).default('asc');

/** A date or date-time (ISO 8601), or null for an open end. */
const instant = z.union([z.null(), z.iso.datetime({ offset: true, local: true }), z.iso.date()]);
/** `[from, to]` (v1 basic search): a JSON array in a JSON body, the repeated key or JSON text in a query. */
export const dateRange = () =>
  z.preprocess(
    (v) => {
      if (typeof v === 'string' && v.trim().startsWith('[')) {
        try {
          return parseJsonBounded(v);
        } catch (err) {
          if (err instanceof SyntaxError) return v;
          throw err;
        }
      }
      return v;
    },
    z.tuple([instant, instant]),
  );

/** A JSON body's list: an array of strings, nothing else (the repeated key is the query string's way). */
export const strictList = (maxChars = 512) => z.array(z.string().max(maxChars)).max(MAX_LIST);

const withoutNullOwn = (v: unknown) => {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return v;
  const o = v as Record<string, unknown>;
  return Object.fromEntries(Object.entries(o).filter(([k, x]) => x !== null || !['tags', 'kvp', 'taxonomy'].includes(k)));
};

/**
 * custom_metadata: any JSON object, whose `tags`, `kvp` and `taxonomy` are the object's own fields
 * (core/search/custom-metadata.ts) and so are typed as those are (null: absent).
 */
export const customMetadata = (tags: z.ZodType = list()) =>
  z.preprocess(
    withoutNullOwn,
    (jsonObject() as z.ZodType).pipe(
      z.looseObject({
        tags: tags.optional(),
        kvp: jsonObject().optional(),
        taxonomy: taxonomy().optional(),
      }),
    ),
  ) as unknown as z.ZodType<Record<string, Json>>;

const nullsAbsent = (v: unknown) =>
  typeof v === 'object' && v !== null && !Array.isArray(v)
    ? Object.fromEntries(Object.entries(v).filter(([, x]) => x !== null))
    : (v ?? {});

/** The thirteen v2 body filters, plus the tags, kvp and taxonomy the payload example shows. Lists are JSON arrays of strings. */
const v2Filters = {
  object_ids: strictList().optional(),
  folders: strictList().optional(),
  object_type: strictList().optional(),
  file_extension: strictList().optional(),
  title: z.string().max(512).optional(),
  size: param.int().check(z.gte(0)).optional(),
  file_name: strictList().optional(),
  repos: strictList().optional(),
  ext_user_id_ref: z.string().max(512).optional(),
  system_metadata: jsonObject().optional(),
  custom_metadata: customMetadata(strictList()).optional(),
  media_metadata: jsonObject().optional(),
  source_system_metadata: jsonObject().optional(),
  tags: strictList().optional(),
  kvp: jsonObject().optional(),
  taxonomy: taxonomy().optional(),
};
export const V2Filters = z.preprocess(nullsAbsent, z.object(v2Filters));

export const V2BasicBody = z.preprocess(
  nullsAbsent,
  z.object({
    ...v2Filters,
    with_exact_search: param.bool().optional(),
    with_highlight: param.bool().optional(),
    is_anywhere: param.bool().optional(),
  }),
);

/** Chunk search: `object_ids` and `custom_metadata` (spec), and `file_names` (the chat proxy's uploaded files, over REST). */
export const ChunkBody = z.preprocess(
  nullsAbsent,
  z.object({
    object_ids: strictList().optional(),
    custom_metadata: customMetadata(strictList()).optional(),
    file_names: list(1000).optional(),
  }),
);

/** Fields of an object a caller sets (create and patch), in wire names. */
const objectFields = {
  title: z.string().max(1000).optional(),
  file_name: z.string().max(1000).optional(),
  object_type: z.string().min(1).max(100).optional(),
  file_extension: z.string().max(20).optional(),
  tags: list().optional(),
  folders: list().optional(),
  repos: list().optional(),
  kvp: jsonObject().optional(),
  taxonomy: taxonomy().optional(),
  ext_user_id_ref: z.string().max(512).optional(),
  system_metadata: jsonObject().optional(),
  custom_metadata: customMetadata().optional(),
  media_metadata: jsonObject().optional(),
  source_system_metadata: jsonObject().optional(),
};

export const ObjectMetadata = z.preprocess(nullsAbsent, z.object(objectFields));
const objectContent = z
  .string()
  .check(z.refine((s) => s.trim().length > 0, { message: 'Value should contain some text', params: { type: 'value_error' } }));
export const NewObjectBody = z.preprocess(nullsAbsent, z.object({ ...objectFields, content: objectContent }));
export const ObjectPatchBody = z.preprocess(nullsAbsent, z.object({ ...objectFields, is_private: param.bool().optional() }));
export const ObjectRef = z.object({ object_id: param.id().check(z.maxLength(100)) });
/** A page of an object's passages: `limit` 1..200 (50 when absent) and the previous page's cursor. */
export const ObjectPassagesQuery = z.object({
  limit: param.int().check(z.gte(1), z.lte(MAX_PAGE)).optional(),
  cursor: param.string().check(z.maxLength(512)).optional(),
});

/** The filters in the domain's own names (the subgraph's DocumentFilter has them), to the v2 body's rules. */
export const FilterInput = z.preprocess(
  nullsAbsent,
  z.object({
    objectIds: strictList().optional(),
    tags: strictList().optional(),
    folders: strictList().optional(),
    repos: strictList().optional(),
    objectTypes: strictList().optional(),
    fileExtensions: strictList().optional(),
    fileNames: strictList().optional(),
    title: v2Filters.title,
    size: v2Filters.size,
    extUserIdRef: v2Filters.ext_user_id_ref,
    kvp: jsonObject().optional(),
    taxonomy: taxonomy().optional(),
    systemMetadata: jsonObject().optional(),
    customMetadata: v2Filters.custom_metadata,
    mediaMetadata: jsonObject().optional(),
    sourceSystemMetadata: jsonObject().optional(),
  }),
);

/** An object's fields in the domain's own names (the subgraph's DocumentInput has them), to the rules of `POST /v2/objects`. */
const newObjectFields = {
  title: objectFields.title,
  fileName: objectFields.file_name,
  objectType: objectFields.object_type,
  fileExtension: objectFields.file_extension,
  tags: list().optional(),
  folders: list().optional(),
  repos: list().optional(),
  kvp: jsonObject().optional(),
  taxonomy: taxonomy().optional(),
  extUserIdRef: objectFields.ext_user_id_ref,
  systemMetadata: jsonObject().optional(),
  customMetadata: customMetadata().optional(),
  mediaMetadata: jsonObject().optional(),
  sourceSystemMetadata: jsonObject().optional(),
};

/** A new object from text (the subgraph's DocumentInput). */
export const NewObjectInput = z.preprocess(nullsAbsent, z.object({ content: objectContent, ...newObjectFields }));

/** The metadata of an uploaded file (the subgraph's UploadDocumentInput), as a multipart upload's `metadata` part takes it. */
export const UploadMetadataInput = z.preprocess(nullsAbsent, z.object(newObjectFields));
