import type { CallContext } from '../shared/context';
import type { NewObject, ObjectFields, PassagePage, PassageRequest, SearchPage, SearchRequest, StoredObject } from './types';

/**
 * The search service's interface: what the REST face, the subgraph, the CLI and the chat service
 * call, in process or (remote mode) through its REST client. Every method acts as the caller in
 * `call` (its tenant, its subject for private objects); see docs/service-conventions.md.
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
  health(input: Record<string, never>, call?: CallContext): Promise<{ status: 'ok'; service: 'search' }>;
  /** semantic, fulltext, basic and hybrid searches with filters, paging, sorting and aggregations. */
  search(req: SearchRequest, call: CallContext): Promise<SearchPage>;
  /** Passages best matching a query, optionally within some objects (chunk search; chat prompts). */
  passages(req: PassageRequest, call: CallContext): Promise<PassagePage>;
  /** Adds an object from text; it is searchable when the promise settles. */
  createObject(input: NewObject, call: CallContext): Promise<StoredObject>;
  /** Extracts the file's text (400 naming the file when it cannot), then adds it as createObject does. */
  uploadObject(input: { file: FileUpload; metadata: Omit<NewObject, 'content'> }, call: CallContext): Promise<StoredObject>;
  getObject(input: { id: string }, call: CallContext): Promise<StoredObject>;
  /** The objects of `ids` the caller may see, null for the others, in order (GraphQL entities). */
  getObjects(input: { ids: readonly string[] }, call: CallContext): Promise<(StoredObject | null)[]>;
  updateObject(input: { id: string; patch: ObjectPatch }, call: CallContext): Promise<StoredObject>;
  deleteObject(input: { id: string }, call: CallContext): Promise<void>;
}
