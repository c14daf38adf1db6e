import type { Chunk } from '../../../core/search/chunker';
import type { PreparedObject, SearchStore, Selection, VectorFormat } from '../../../core/search/ports';
import type { Filters, ObjectFields } from '../../../core/search/types';
import { eventually } from '../../shared/wait';

/**
 * What the search store contracts (store-contracts.ts) are written with: two handles on one backing
 * store (two processes), and objects built as the domain would hand them to the store.
 */
export interface Opened {
  one: SearchStore;
  two: SearchStore;
  close(): Promise<void>;
}

export type Open = () => Promise<Opened>;

export const T0 = Date.UTC(2024, 0, 1);
export const DAY = 86_400_000;
export const FORMAT: VectorFormat = { id: 'contract-4d', dimensions: 4, sparse: false };

/** A distinct, recognisable vector for each passage. */
export const vectorOf = (i: number) => Float32Array.from([1, i, 0.5, -0.25]);

export interface Spec extends Partial<ObjectFields> {
  tenant?: string;
  by?: string;
  isPrivate?: boolean;
  now?: number;
  passages?: string[];
  size?: number;
  sourceKey?: string;
  contentHash?: string;
}

let next = 0;

export function fieldsOf(spec: Partial<ObjectFields>): ObjectFields {
  return {
    title: 'Untitled',
    fileName: null,
    fileExtension: null,
    objectType: 'Document',
    tags: [],
    folders: [],
    repos: [],
    kvp: {},
    taxonomy: {},
    extUserIdRef: null,
    customMetadata: {},
    mediaMetadata: {},
    sourceSystemMetadata: {},
    systemMetadata: {},
    ...spec,
  };
}

export function prepared(spec: Spec = {}): PreparedObject {
  const { tenant = 'ta', by = 'alice', isPrivate = false, now = T0, passages, size, sourceKey, contentHash, ...fields } = spec;
  const texts = passages ?? [`A passage about ${fields.title ?? 'nothing much'}.`];
  let at = 0;
  const chunks = texts.map((text, index): Chunk => {
    const start = at;
    at += text.length + 1;
    return { index, text, start, end: start + text.length };
  });
  const content = texts.join('\n');
  return {
    id: `contract-${process.pid}-${++next}`,
    tenant,
    fields: fieldsOf(fields),
    isPrivate,
    size: size ?? content.length,
    content,
    chunks,
    vectors: chunks.map((_, i) => vectorOf(i)),
    embedderId: FORMAT.id,
    sparseVectors: FORMAT.sparse,
    createdBy: by,
    now,
    sourceKey,
    contentHash,
  };
}

export const sel = (tenant: string, subject = 'alice', filters: Filters = {}): Selection => ({ scope: { tenant, subject }, filters });

/** The titles of these objects, sorted: what a selection reached, readable in a failure. */
export async function titles(store: SearchStore, seqs: Iterable<number>): Promise<string[]> {
  const objects = await store.queries.objects([...seqs]);
  return [...objects.values()].map((o) => o.title).sort();
}

/** Whether the handle's data version moves from `before` (another handle's write reaches it by notification or poll); false after a generous wait. */
export async function versionMoves(store: SearchStore, before: string): Promise<boolean> {
  return eventually(() => store.feeds.dataVersion() !== before, 20_000, 5).then(
    () => true,
    () => false,
  );
}
