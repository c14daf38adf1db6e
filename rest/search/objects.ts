import { ObjectMetadata, ObjectPassagesQuery, ObjectPatchBody, ObjectRef, NewObjectBody } from '../../core/search/inputs';
import type { SearchService } from '../../core/search/service';
import { parseInput } from '../../core/shared/validation';
import { BadRequest } from '../../core/shared/errors';
import { MAX_JSON_DEPTH, parseJsonBounded } from '../../core/shared/json-depth';
import { uploadOf } from '../shared/multipart';
import type { Route } from '../shared/routes';
import { failures, notFound, READ, WRITE, define } from './common';
import { objectDocs, PassagesPage } from './docs';
import { objectFrom, objectPassagesView, objectView } from './wire';

/**
 * DECISIONS' extension endpoints: add an object from JSON text or a file upload (multipart: a
 * `file` part and a `metadata` part holding the same JSON without `content`), get, patch, delete.
 */
const metadataOf = (text: string | undefined) => {
  if (text === undefined || text.trim() === '') return {};
  try {
    return parseJsonBounded(text, MAX_JSON_DEPTH, 'The metadata part');
  } catch (err) {
    if (err instanceof SyntaxError) throw new BadRequest('The metadata part is not valid JSON');
    throw err;
  }
};

export function searchObjectRoutes(search: SearchService, maxUploadBytes: number): Route[] {
  return [
    define({
      method: 'post',
      path: '/v2/objects',
      summary: 'Add an object (JSON text, or a multipart file upload with metadata)',
      tags: ['objects'],
      description:
        'multipart/form-data: a `file` part (txt, md, html, pdf or docx) and an optional `metadata` part with the JSON fields below except `content`.',
      auth: WRITE,
      upload: { maxBytes: maxUploadBytes, setting: 'SEARCH_MAX_UPLOAD_BYTES' },
      input: { body: NewObjectBody },
      docs: objectDocs.create,
      responses: {
        201: { description: 'Object created' },
        ...failures,
        409: { description: 'Object limit of the tenant reached' },
        413: { description: 'Upload too large' },
      },
      handle: async (input, { ctx, res }) => {
        const upload = uploadOf(res);
        let id: string;
        if (upload) {
          if (!upload.file) throw new BadRequest('No file part in the upload');
          const metadata = objectFrom(parseInput(ObjectMetadata, metadataOf(upload.fields.metadata), ['body', 'metadata']));
          const file = { name: upload.file.name, bytes: upload.file.bytes, contentType: upload.file.contentType };
          id = (await search.uploadObject({ file, metadata }, ctx)).id;
        } else {
          id = (await search.createObject({ ...objectFrom(input.body), content: input.body.content }, ctx)).id;
        }
        res.status(201);
        return { status: 'success', message: 'Object created', object_id: id };
      },
    }),
    define({
      method: 'get',
      path: '/v2/objects/:object_id',
      summary: 'An object and its metadata',
      tags: ['objects'],
      auth: READ,
      input: { path: ObjectRef },
      docs: objectDocs.one,
      responses: { 200: { description: 'Object found' }, ...failures, ...notFound },
      handle: async (input, { ctx }) => ({
        status: 'success',
        message: 'Object found',
        result: objectView(await search.getObject({ id: input.object_id }, ctx)),
      }),
    }),
    define({
      method: 'get',
      path: '/v2/objects/:object_id/passages',
      summary: "An object's passages, in order, a page at a time",
      description:
        'The passages the text was cut into (`chunk_index` from 0), `limit` per page (1-200, default 50); ' +
        "the next page is asked with the previous page's `next_cursor` as `cursor`.",
      tags: ['objects'],
      auth: READ,
      input: { path: ObjectRef, query: ObjectPassagesQuery },
      responses: { 200: { description: 'A page of passages', schema: PassagesPage }, ...failures, ...notFound },
      handle: async (input, { ctx }) =>
        objectPassagesView(await search.objectPassages({ id: input.object_id, limit: input.limit, after: input.cursor }, ctx)),
    }),
    define({
      method: 'patch',
      path: '/v2/objects/:object_id',
      summary: "Change an object's metadata (each field given replaces the stored one)",
      tags: ['objects'],
      auth: WRITE,
      input: { path: ObjectRef, body: ObjectPatchBody },
      responses: { 200: { description: 'Object updated' }, ...failures, ...notFound },
      handle: async (input, { ctx }) => {
        const patch = { ...objectFrom(input.body), isPrivate: input.body.is_private };
        const o = await search.updateObject({ id: input.object_id, patch }, ctx);
        return { status: 'success', message: 'Object updated', result: objectView(o) };
      },
    }),
    define({
      method: 'delete',
      path: '/v2/objects/:object_id',
      summary: 'Delete an object (soft delete: it never appears in results again)',
      tags: ['objects'],
      auth: WRITE,
      input: { path: ObjectRef },
      responses: { 200: { description: 'Object deleted' }, ...failures, ...notFound },
      handle: async (input, { ctx }) => {
        await search.deleteObject({ id: input.object_id }, ctx);
        return { status: 'success', message: 'Object deleted', object_id: input.object_id };
      },
    }),
  ];
}
