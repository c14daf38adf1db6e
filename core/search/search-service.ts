import { authorize, MissingCredentials, type Caller } from '../shared/auth/caller';
import type { Clock } from '../shared/clock';
import type { Ctx } from '../shared/context';
import { uuidv7 } from '../shared/ids';
import type { Embedder } from '../shared/text/embedder';
import { ObjectNotFound } from './errors';
import { extractText } from './extract';
import { objectPassages, passagesAsk } from './object-passages';
import { hitsFor, round, strip } from './hits';
import { contentHash, isPrivateIn, newFields, passagesOf, patchedFields, systemMetadata } from './objects';
import type { ObjectRecord, ObjectStore, Selection, SourceOutcome } from './ports';
import type { Ranking, Scored } from './ranking';
import type { SearchIndex } from './search-index';
import type { SearchService } from './service';
import type { VectorSearch } from './semantic';
import type { NewObject, Passage, PassagePage, PassageRequest, Scope, SearchPage, SearchRequest, StoredObject } from './types';
import type { Metrics } from '../shared/telemetry/metrics';
import { queryTelemetry } from './telemetry';

import { READ_ROLE, WRITE_ROLE } from './roles';

export interface SearchServiceDeps {
  store: ObjectStore;
  index: SearchIndex;
  vectors: VectorSearch;
  ranking: Ranking;
  embedder: Embedder;
  clock: Clock;
  maxObjectsPerTenant: number;
  maxCandidates: number;
  /** Where queries are counted and timed (telemetry.ts); nothing is counted when absent. */
  metrics?: Metrics;
}

/** The caller's tenant and subject, when it holds `role` (a REST route checks too, before reading a body; the core never relies on it). */
function scopeFor(ctx: Ctx<Caller>, role: string): Scope & { caller: Caller } {
  if (!ctx.caller) throw new MissingCredentials();
  const caller = authorize(ctx.caller, { roles: [role] });
  return { tenant: caller.tenantId, subject: caller.subject, caller };
}

export function createSearchService(d: SearchServiceDeps) {
  const query = queryTelemetry(d.metrics);
  /** Adds (or, for `platform ingest`, replaces or keeps) an object as `scope`. */
  const add = async (scope: Scope, input: NewObject): Promise<SourceOutcome> => {
    const hash = input.contentHash ?? contentHash(input.content);
    const previous = input.sourceKey ? await d.store.bySource(scope.tenant, input.sourceKey) : undefined;
    if (previous && previous.contentHash === hash) return { id: previous.id, outcome: 'unchanged' };
    const fields = newFields(input, input.content);
    const now = d.clock.now();
    const isPrivate = isPrivateIn(input.systemMetadata) ?? false;
    fields.systemMetadata = systemMetadata(fields.systemMetadata, {
      createdBy: scope.subject,
      updatedBy: scope.subject,
      isPrivate,
      createdAt: now,
      updatedAt: now,
    });
    const { chunks, vectors } = await passagesOf(input.content, fields.title, d.embedder);
    const prepared = {
      id: uuidv7(now),
      tenant: scope.tenant,
      fields,
      isPrivate,
      size: input.size ?? Buffer.byteLength(input.content),
      content: input.content,
      chunks,
      vectors,
      embedderId: d.embedder.id,
      sparseVectors: d.embedder.sparse,
      createdBy: scope.subject,
      now,
      sourceKey: input.sourceKey,
      contentHash: hash,
    };
    if (!input.sourceKey) {
      await d.store.insert(prepared, d.maxObjectsPerTenant);
      return { id: prepared.id, outcome: 'created' };
    }
    // Decided again inside the write transaction: a parallel run may have added or replaced it since.
    return d.store.putSource(
      { ...prepared, sourceKey: input.sourceKey },
      (old) => deletedSystem(old, scope.subject, now),
      d.maxObjectsPerTenant,
    );
  };

  /** The object just written (gone only if another process deleted it since: then not found, as it would be a moment later). */
  const written = async (scope: Scope, id: string): Promise<StoredObject> => {
    const o = await d.store.get(scope.tenant, id);
    if (!o) throw new ObjectNotFound();
    return strip(o);
  };

  const deletedSystem = (o: StoredObject, by: string, now: number) =>
    systemMetadata(o.systemMetadata, {
      createdBy: o.createdBy,
      updatedBy: by,
      isPrivate: o.isPrivate,
      createdAt: o.createdAt.getTime(),
      updatedAt: now,
      deletedAt: now,
    });

  /** The object if the scope may see it (its tenant; not someone else's private object). */
  const visible = async (scope: Scope, id: string): Promise<ObjectRecord> => {
    const o = await d.store.get(scope.tenant, id);
    if (!o || (o.isPrivate && o.createdBy !== scope.subject)) throw new ObjectNotFound();
    return o;
  };

  /** A search of `scope`'s objects (its span and metrics are the service method's). */
  const searchIn = async (scope: Scope & { caller: Caller }, req: SearchRequest): Promise<SearchPage> => {
    const where: Selection = { scope, filters: req.filters };
    const want = req.offset + req.limit;
    const texts = async (top: Scored[]) =>
      (await hitsFor(d.index, top, req.query, false)).map((h) => ({ title: h.object.title, text: h.snippet }));
    let ranked: Scored[];
    switch (req.mode) {
      case 'fulltext':
        ranked = await d.ranking.fulltext(scope.tenant, where, req.query);
        break;
      case 'semantic':
        ranked = await d.ranking.semantic(scope.tenant, where, req.query, want);
        break;
      case 'basic':
        ranked = await d.ranking.basic(where, req);
        break;
      case 'hybrid':
        ranked = await d.ranking.hybrid(scope.tenant, where, req, want, texts);
        break;
    }
    if (req.minScore) ranked = ranked.filter((s) => s.score >= req.minScore! - 1e-9);
    const seqs = ranked.map((s) => s.seq);
    let page = ranked.slice(req.offset, want);
    if (req.sort) {
      const bySeq = new Map(ranked.map((s) => [s.seq, s]));
      page = (await d.index.sorted(seqs, req.sort.by, req.sort.order)).slice(req.offset, want).map((seq) => bySeq.get(seq)!);
    }
    const [hits, aggregations] = await Promise.all([hitsFor(d.index, page, req.query, req.highlight ?? false), d.index.aggregations(seqs)]);
    return { total: ranked.length, hits, aggregations };
  };

  /** A passage search of `scope`'s objects. */
  const passagesIn = async (scope: Scope & { caller: Caller }, req: PassageRequest): Promise<PassagePage> => {
    const ranked = await d.ranking.passages(scope.tenant, { scope, filters: req.filters }, req);
    const page = ranked.slice(req.offset, req.offset + req.limit);
    const texts = await d.index.chunkTexts(page.map((r) => r.chunkId));
    const objects = await d.index.objects([...new Set([...texts.values()].map((t) => t.seq))]);
    const found = page.flatMap((r): Passage[] => {
      const t = texts.get(r.chunkId);
      const o = t && objects.get(t.seq);
      if (!t || !o) return [];
      return [
        {
          objectId: o.id,
          chunkId: r.chunkId,
          chunkIndex: t.idx,
          text: t.text,
          score: round(r.score),
          title: o.title,
          fileName: o.fileName,
        },
      ];
    });
    return { total: ranked.length, passages: found };
  };

  const service: SearchService = {
    health: async () => ({ status: 'ok', service: 'search' }),

    async search(req, call) {
      const scope = scopeFor(call, READ_ROLE);
      return query(req.mode, call.trace, () => searchIn(scope, req));
    },

    async passages(req, call) {
      const scope = scopeFor(call, READ_ROLE);
      return query(req.mode === 'semantic' ? 'passages_semantic' : 'passages_hybrid', call.trace, () => passagesIn(scope, req));
    },

    async createObject(input, call) {
      const scope = scopeFor(call, WRITE_ROLE);
      return written(scope, (await add(scope, { ...input, sourceKey: undefined })).id);
    },

    async uploadObject({ file, metadata }, call) {
      const scope = scopeFor(call, WRITE_ROLE);
      const { kind, text } = await extractText(file);
      const fields = { ...metadata, fileName: metadata.fileName ?? file.name, fileExtension: metadata.fileExtension ?? kind };
      return written(scope, (await add(scope, { ...fields, content: text, size: file.bytes.byteLength })).id);
    },

    async getObject({ id }, call) {
      return strip(await visible(scopeFor(call, READ_ROLE), id));
    },

    async getObjects({ ids }, call) {
      const scope = scopeFor(call, READ_ROLE);
      const found = await d.index.objects([...(await d.index.allowed({ scope, filters: { objectIds: [...ids] } }))]);
      const byId = new Map([...found.values()].map((o) => [o.id, strip(o)]));
      return ids.map((id) => byId.get(id) ?? null);
    },

    async objectPassages(req, call) {
      const scope = scopeFor(call, READ_ROLE);
      const ask = passagesAsk(req);
      return objectPassages(d.store, await visible(scope, req.id), ask);
    },

    async updateObject({ id, patch }, call) {
      const scope = scopeFor(call, WRITE_ROLE);
      const current = await visible(scope, id);
      const fields = patchedFields(current, patch);
      const now = d.clock.now();
      const isPrivate = patch.isPrivate ?? isPrivateIn(patch.systemMetadata) ?? current.isPrivate;
      fields.systemMetadata = systemMetadata(fields.systemMetadata, {
        createdBy: current.createdBy,
        updatedBy: scope.subject,
        isPrivate,
        createdAt: current.createdAt.getTime(),
        updatedAt: now,
      });
      await d.store.update(current.seq, fields, isPrivate, scope.subject, now, fields.title !== current.title);
      return written(scope, id);
    },

    async deleteObject({ id }, call) {
      const scope = scopeFor(call, WRITE_ROLE);
      const current = await visible(scope, id);
      const now = d.clock.now();
      if (!(await d.store.remove(current.seq, deletedSystem(current, scope.subject, now), scope.subject, now))) throw new ObjectNotFound();
    },
  };
  return { service, add };
}
