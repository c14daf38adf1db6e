import { session } from '../auth/session';
import { createRequest, stringifyDocument } from 'urql';
import { UPLOAD } from '../operations/documents';

/**
 * A file sent to the graph's `uploadDocument` mutation with its progress: read as base64 by a
 * FileReader (off the main thread's critical path), then POSTed to `/graphql` by an
 * XMLHttpRequest, whose `upload.onprogress` counts the bytes sent (fetch cannot), with the bearer
 * the urql client sends (client.ts). Still one operation of the one graph, at the one address.
 */

export interface UploadMeta {
  title?: string;
  tags?: string[];
  folders?: string[];
  repos?: string[];
  isPrivate?: boolean;
}

export type UploadPhase =
  | { phase: 'reading'; fraction: number }
  | { phase: 'uploading'; fraction: number }
  /** Every byte sent: the graph extracts the text, cuts and embeds it. */
  | { phase: 'indexing' };

export interface Uploaded {
  id: string;
  title: string;
  fileName: string | null;
  chunkCount: number;
}

/** The graph's refusal (its message and `extensions.code`), or a transport failure (no code). */
export class UploadRefused extends Error {
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
    this.name = 'UploadRefused';
  }
}

/** The file's bytes in base64 (the data URL's payload), read without blocking the page. */
function base64Of(file: File, onProgress: (fraction: number) => void, signal?: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    const abort = () => reader.abort();
    signal?.addEventListener('abort', abort, { once: true });
    reader.onprogress = (e) => e.lengthComputable && onProgress(e.loaded / Math.max(1, e.total));
    reader.onload = () => {
      signal?.removeEventListener('abort', abort);
      const url = typeof reader.result === 'string' ? reader.result : '';
      resolve(url.slice(url.indexOf(',') + 1));
    };
    reader.onerror = () => reject(new UploadRefused(`The file could not be read: ${reader.error?.message ?? 'unknown error'}`));
    reader.onabort = () => reject(new UploadRefused('Cancelled.', 'CANCELLED'));
    reader.readAsDataURL(file);
  });
}

interface GraphAnswer {
  data?: { uploadDocument?: Uploaded | null } | null;
  errors?: { message: string; extensions?: { code?: string } }[];
}

/** What the graph answered, as the document or its refusal. */
function outcomeOf(status: number, text: string): Uploaded {
  let body: GraphAnswer | undefined;
  try {
    body = JSON.parse(text) as GraphAnswer;
  } catch {
    body = undefined;
  }
  const error = body?.errors?.[0];
  if (error) throw new UploadRefused(error.message, error.extensions?.code);
  if (status === 413) throw new UploadRefused('The file is larger than the graph accepts.', 'PAYLOAD_TOO_LARGE');
  const doc = body?.data?.uploadDocument;
  if (status !== 200 || !doc) throw new UploadRefused(`The graph answered HTTP ${status} without a document.`);
  return doc;
}

/** Uploads `file` as a document of the signed-in person's tenant, reporting each phase; rejects with UploadRefused. */
export async function uploadDocument(
  file: File,
  meta: UploadMeta,
  onPhase: (p: UploadPhase) => void,
  signal?: AbortSignal,
): Promise<Uploaded> {
  if (signal?.aborted) throw new UploadRefused('Cancelled.', 'CANCELLED');
  onPhase({ phase: 'reading', fraction: 0 });
  const contentBase64 = await base64Of(file, (fraction) => onPhase({ phase: 'reading', fraction }), signal);
  const input = { fileName: file.name, contentBase64, contentType: file.type || undefined, ...meta };
  // The text as urql would send it (parsed and printed again): the one the console's trusted documents list.
  const query = stringifyDocument(createRequest(UPLOAD, {}).query);
  const body = JSON.stringify({ operationName: 'ConsoleUpload', query, variables: { input } });
  const bearer = await session.bearer();
  if (signal?.aborted) throw new UploadRefused('Cancelled.', 'CANCELLED');
  onPhase({ phase: 'uploading', fraction: 0 });
  return new Promise<Uploaded>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    const abort = () => xhr.abort();
    signal?.addEventListener('abort', abort, { once: true });
    xhr.open('POST', '/graphql');
    xhr.setRequestHeader('content-type', 'application/json');
    if (bearer) xhr.setRequestHeader('authorization', `Bearer ${bearer}`);
    xhr.upload.onprogress = (e) => e.lengthComputable && onPhase({ phase: 'uploading', fraction: e.loaded / Math.max(1, e.total) });
    xhr.upload.onload = () => onPhase({ phase: 'indexing' });
    xhr.onload = () => {
      signal?.removeEventListener('abort', abort);
      try {
        resolve(outcomeOf(xhr.status, xhr.responseText));
      } catch (e) {
        reject(e);
      }
    };
    xhr.onerror = () =>
      reject(new UploadRefused('The connection ended before the graph answered (a file over its size limit is cut off so).', 'NETWORK'));
    xhr.onabort = () => reject(new UploadRefused('Cancelled.', 'CANCELLED'));
    xhr.send(body);
  });
}
