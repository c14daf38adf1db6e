import type { CombinedError } from 'urql';
export { SEARCH, DOCUMENT, PASSAGES, DELETE } from '../../operations/documents';

/** The search subgraph's operations and shapes the Documents page uses (schema/search/search.graphql). */

export interface DocumentRow {
  id: string;
  title: string;
  fileName: string | null;
  fileExtension: string | null;
  objectType: string;
  size: number;
  tags: string[];
  folders: string[];
  repos: string[];
  isPrivate: boolean;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
  chunkCount: number;
}

export interface DocumentFull extends DocumentRow {
  kvp: Record<string, unknown>;
  extUserIdRef: string | null;
}

export interface Bucket {
  key: string;
  docCount: number;
}

export interface Aggregations {
  objectType: Bucket[];
  fileExtension: Bucket[];
  tags: Bucket[];
  repos: Bucket[];
  folders: Bucket[];
}

export interface Hit {
  score: number;
  snippet: string;
  highlights: { field: string; fragment: string }[] | null;
  document: DocumentRow;
}

export interface SearchAnswer {
  search: { totalCount: number; pageNo: number; pageSize: number; hits: Hit[]; aggregations: Aggregations } | null;
}

export interface PassagePage {
  items: { chunkId: string; chunkIndex: number; text: string }[];
  total: number;
  nextCursor: string | null;
}

/** The graph's `extensions.code` of an error (FORBIDDEN, NOT_FOUND, ...), if it gave one. */
export const codeOf = (error: CombinedError | undefined): string | undefined =>
  error?.graphQLErrors.find((e) => typeof e.extensions?.code === 'string')?.extensions.code as string | undefined;

/** The link that opens a document on this page. */
export const documentHref = (id: string) => `#/documents/${encodeURIComponent(id)}`;

const UNITS = ['bytes', 'KB', 'MB', 'GB', 'TB'];

/** A size in bytes as people read it (1 KB = 1024 bytes). */
export function sizeOf(bytes: number): string {
  let n = bytes;
  let u = 0;
  while (n >= 1024 && u < UNITS.length - 1) {
    n /= 1024;
    u++;
  }
  return u === 0 ? `${n} ${n === 1 ? 'byte' : 'bytes'}` : `${n < 10 ? n.toFixed(1) : Math.round(n)} ${UNITS[u]}`;
}
