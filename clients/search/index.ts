import type { Caller } from '../../core/shared/auth/caller';
import type { Ctx } from '../../core/shared/context';
import { BadRequest } from '../../core/shared/errors';
import type { SearchService } from '../../core/search/service';
import type { NewObject, ObjectFields } from '../../core/search/types';
import { callOptions, httpClient, type HttpClientOptions } from '../shared/http';
import {
  filtersToWire,
  objectFromWire,
  pageFromWire,
  pageOf,
  passageFromWire,
  type EnvelopeWire,
  type ObjectWire,
  type PassageWire,
} from './wire';

type PassagePageWire = Pick<PassageWire, 'chunk_id' | 'chunk_index' | 'text'>;

const P = '/cl/search/api/v2';
const HYBRID_PAGE = 20;

/** The fields of an object as v2 bodies name them. */
const fieldsToWire = (f: Partial<ObjectFields>) => ({
  title: f.title,
  file_name: f.fileName ?? undefined,
  file_extension: f.fileExtension ?? undefined,
  object_type: f.objectType,
  tags: f.tags,
  folders: f.folders,
  repos: f.repos,
  kvp: f.kvp,
  taxonomy: f.taxonomy,
  ext_user_id_ref: f.extUserIdRef ?? undefined,
  system_metadata: f.systemMetadata,
  custom_metadata: f.customMetadata,
  media_metadata: f.mediaMetadata,
  source_system_metadata: f.sourceSystemMetadata,
});

const tenantOf = (ctx?: Ctx<Caller>) => ctx?.caller?.tenantId ?? '';

/**
 * The search service over its v2 REST paths, as the caller (its bearer token travels on), for a
 * deployment where search runs elsewhere. What v2 cannot say is refused rather than dropped: date
 * range filters, an offset off a page boundary. `platform ingest`'s source keys stay in process.
 */
export function searchClient(opts: HttpClientOptions): SearchService {
  const { request } = httpClient(opts);
  const get = async (id: string, ctx: Ctx<Caller>) =>
    objectFromWire(
      (await request<{ result: ObjectWire }>('GET', `${P}/objects/${encodeURIComponent(id)}`, callOptions(ctx))).result,
      tenantOf(ctx),
    );
  const created = async (r: Promise<{ object_id: string }>, ctx: Ctx<Caller>) => get((await r).object_id, ctx);
  return {
    health: async (_input, ctx) => {
      await request('GET', `${P}/healthz`, callOptions(ctx));
      return { status: 'ok', service: 'search' };
    },
    async search(req, ctx) {
      const page = req.mode === 'hybrid' ? {} : pageOf(req.offset, req.limit);
      const sort = req.sort ? { sorting_by: req.sort.by, order: req.sort.order } : {};
      const filters = filtersToWire(req.filters);
      const call = (path: string, query: Record<string, unknown>, body: object) =>
        request<EnvelopeWire>('POST', `${P}/${path}`, {
          ...callOptions(ctx),
          query: { query_string: req.query, ...page, ...query },
          json: body,
        });
      // v2 hybrid pages are 20 long: a shorter page is the start of one.
      const hybrid = async () => {
        if (req.limit > HYBRID_PAGE)
          throw new BadRequest(`Hybrid search over REST returns at most ${HYBRID_PAGE} results a page`, { code: 'page_too_large' });
        const e = await call('search', { re_ranked: req.rerank ?? true, ...pageOf(req.offset, HYBRID_PAGE) }, filters);
        return { ...e, result: e.result.slice(0, req.limit) };
      };
      const e =
        req.mode === 'hybrid'
          ? await hybrid()
          : req.mode === 'basic'
            ? await call('basic_search', sort, {
                ...filters,
                with_exact_search: req.exact,
                with_highlight: req.highlight,
                is_anywhere: req.anywhere,
              })
            : await call(req.mode, { ...sort, min_relevant_score: req.minScore ?? 0 }, filters);
      return pageFromWire(e, tenantOf(ctx));
    },
    async passages(req, ctx) {
      const { objectIds, customMetadata, fileNames, ...rest } = req.filters;
      const other = Object.entries(rest).find(([, v]) => v !== undefined);
      if (other || req.mode === 'semantic' || req.rerank === false) {
        throw new BadRequest(
          `Chunk search over REST is hybrid and re-ranked, within object ids, custom metadata or file names only${other ? ` (not ${other[0]})` : ''}`,
          { code: 'filter_not_remote' },
        );
      }
      const f = { objectIds, customMetadata, fileNames };
      const r = await request<EnvelopeWire & { result: PassageWire[] }>('POST', `${P}/chunk/search`, {
        ...callOptions(ctx),
        query: { query_string: req.query, ...pageOf(req.offset, req.limit) },
        json: { object_ids: f.objectIds, custom_metadata: f.customMetadata, file_names: f.fileNames },
      });
      return { total: r.result_count, passages: r.result.map(passageFromWire) };
    },
    createObject: (input: NewObject, ctx) =>
      created(request('POST', `${P}/objects`, { ...callOptions(ctx), json: { ...fieldsToWire(input), content: input.content } }), ctx),
    uploadObject: ({ file, metadata }, ctx) => {
      const form = new FormData();
      form.append('file', new Blob([file.bytes], { type: file.contentType ?? 'application/octet-stream' }), file.name);
      form.append('metadata', JSON.stringify(fieldsToWire(metadata)));
      return created(request('POST', `${P}/objects`, { ...callOptions(ctx), multipart: form }), ctx);
    },
    getObject: ({ id }, ctx) => get(id, ctx),
    getObjects: ({ ids }, ctx) =>
      Promise.all(
        ids.map((id) =>
          get(id, ctx).catch((err: unknown) => {
            if ((err as { kind?: string }).kind === 'not_found') return null;
            throw err;
          }),
        ),
      ),
    async objectPassages({ id, limit, after }, ctx) {
      const r = await request<{ result_count: number; result: PassagePageWire[]; next_cursor: string | null }>(
        'GET',
        `${P}/objects/${encodeURIComponent(id)}/passages`,
        { ...callOptions(ctx), query: { limit, cursor: after } },
      );
      return {
        items: r.result.map((p) => ({ chunkId: p.chunk_id, chunkIndex: p.chunk_index, text: p.text })),
        total: r.result_count,
        nextCursor: r.next_cursor,
      };
    },
    async updateObject({ id, patch }, ctx) {
      const body = { ...fieldsToWire(patch), is_private: patch.isPrivate };
      const r = await request<{ result: ObjectWire }>('PATCH', `${P}/objects/${encodeURIComponent(id)}`, {
        ...callOptions(ctx),
        json: body,
      });
      return objectFromWire(r.result, tenantOf(ctx));
    },
    deleteObject: async ({ id }, ctx) => void (await request('DELETE', `${P}/objects/${encodeURIComponent(id)}`, callOptions(ctx))),
  };
}
