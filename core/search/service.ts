import type { Caller } from '../shared/auth/caller';
import type { Ctx } from '../shared/context';
import type {
  NewObject,
  ObjectFields,
  ObjectPassagePage,
  ObjectPassagesRequest,
  PassagePage,
  PassageRequest,
  SearchPage,
  SearchRequest,
  StoredObject,
} from './types';

/**
 * The search service's interface: what the REST face, the subgraph, the CLI and the chat service
 * call, in process or (remote mode) through its REST client. Every method acts as `ctx.caller`, the
 * bearer token's caller the edge established (its roles, its tenant, its subject for private
 * objects); see docs/service-conventions.md.
 */
export interface ObjectPatch extends Partial<ObjectFields> {
  isPrivate?: boolean;
}

export interface FileUpload {
  name: string;
  bytes: Uint8Array;
  contentType?: string;
}

export interface SearchService {
  health(input: Record<string, never>, ctx?: Ctx<Caller | undefined>): Promise<{ status: 'ok'; service: 'search' }>;
  /** semantic, fulltext, basic and hybrid searches with filters, paging, sorting and aggregations. */
  search(req: SearchRequest, ctx: Ctx<Caller>): Promise<SearchPage>;
  /** Passages best matching a query, optionally within some objects (chunk search; chat prompts). */
  passages(req: PassageRequest, ctx: Ctx<Caller>): Promise<PassagePage>;
  /** Adds an object from text; it is searchable when the promise settles. */
  createObject(input: NewObject, ctx: Ctx<Caller>): Promise<StoredObject>;
  /** Extracts the file's text (400 naming the file when it cannot), then adds it as createObject does. */
  uploadObject(input: { file: FileUpload; metadata: Omit<NewObject, 'content'> }, ctx: Ctx<Caller>): Promise<StoredObject>;
  getObject(input: { id: string }, ctx: Ctx<Caller>): Promise<StoredObject>;
  /** The objects of `ids` the caller may see, null for the others, in order (GraphQL entities). */
  getObjects(input: { ids: readonly string[] }, ctx: Ctx<Caller>): Promise<(StoredObject | null)[]>;
  /** The object's passages in order, a page at a time (a document's reader); the object as getObject sees it (else NOT_FOUND). */
  objectPassages(input: ObjectPassagesRequest, ctx: Ctx<Caller>): Promise<ObjectPassagePage>;
  updateObject(input: { id: string; patch: ObjectPatch }, ctx: Ctx<Caller>): Promise<StoredObject>;
  deleteObject(input: { id: string }, ctx: Ctx<Caller>): Promise<void>;
}
