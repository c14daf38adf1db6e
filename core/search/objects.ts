import { createHash } from 'node:crypto';
import { extname } from 'node:path';
import { chunkText } from './chunker';
import { foldCustom } from './custom-metadata';
import type { Embedder } from '../shared/text/embedder';
import type { ObjectPatch } from './service';
import type { PreparedObject } from './ports';
import type { JsonObject, NewObject, ObjectFields } from './types';

/**
 * From what a caller gives to what is stored: defaults for absent fields, the service's own
 * `system_metadata` (who and when; `is_private` is the caller's), passages and their vectors.
 */
export const SYSTEM_KEYS = ['created_by', 'updated_by', 'is_private', 'is_deleted', 'created_at', 'updated_at', 'deleted_at'] as const;

const TITLE_WORDS = 12;

/** The caller's part of system_metadata (licence and the like): the service's own keys are dropped. */
const callersSystem = (m: JsonObject | undefined): JsonObject =>
  Object.fromEntries(Object.entries(m ?? {}).filter(([k]) => !(SYSTEM_KEYS as readonly string[]).includes(k)));

export interface SystemFacts {
  createdBy: string;
  updatedBy: string;
  isPrivate: boolean;
  createdAt: number;
  updatedAt: number;
  deletedAt?: number;
}

export function systemMetadata(callers: JsonObject | undefined, f: SystemFacts): JsonObject {
  const iso = (ms: number) => new Date(ms).toISOString();
  return {
    ...callersSystem(callers),
    created_by: f.createdBy,
    updated_by: f.updatedBy,
    is_private: f.isPrivate,
    is_deleted: f.deletedAt !== undefined,
    created_at: iso(f.createdAt),
    updated_at: iso(f.updatedAt),
    ...(f.deletedAt !== undefined ? { deleted_at: iso(f.deletedAt) } : {}),
  };
}

const extensionOf = (fileName: string | null | undefined) => (fileName ? extname(fileName).slice(1).toLowerCase() || null : null);

export function defaultTitle(content: string, fileName?: string | null): string {
  if (fileName) return fileName;
  const words = content.split(/\s+/).filter(Boolean);
  return words.slice(0, TITLE_WORDS).join(' ') + (words.length > TITLE_WORDS ? '…' : '');
}

/** The stored fields of a new object (custom_metadata's tags, kvp and taxonomy become its own). */
export function newFields(given: Omit<NewObject, 'content'>, content: string): ObjectFields {
  const input = foldCustom(given);
  return {
    title: input.title?.trim() || defaultTitle(content, input.fileName),
    fileName: input.fileName ?? null,
    fileExtension: (input.fileExtension ?? extensionOf(input.fileName))?.replace(/^\./, '').toLowerCase() ?? null,
    objectType: input.objectType ?? 'Document',
    tags: input.tags ?? [],
    folders: input.folders ?? [],
    repos: input.repos ?? [],
    kvp: input.kvp ?? {},
    taxonomy: input.taxonomy ?? {},
    extUserIdRef: input.extUserIdRef ?? null,
    customMetadata: input.customMetadata ?? {},
    mediaMetadata: input.mediaMetadata ?? {},
    sourceSystemMetadata: input.sourceSystemMetadata ?? {},
    systemMetadata: callersSystem(input.systemMetadata),
  };
}

/** An object's fields after a patch: each field given (custom_metadata's tags, kvp, taxonomy too) replaces the stored one. */
export function patchedFields(current: ObjectFields, patch: ObjectPatch): ObjectFields {
  const given = Object.fromEntries(
    Object.entries(foldCustom(patch)).filter(([k, v]) => v !== undefined && k !== 'isPrivate'),
  ) as Partial<ObjectFields>;
  const next = { ...current, ...given };
  if (given.systemMetadata) next.systemMetadata = { ...callersSystem(current.systemMetadata), ...callersSystem(given.systemMetadata) };
  if (given.fileExtension) next.fileExtension = given.fileExtension.replace(/^\./, '').toLowerCase();
  return next;
}

export const isPrivateIn = (m: JsonObject | undefined): boolean | undefined =>
  typeof m?.is_private === 'boolean' ? m.is_private : undefined;

export const contentHash = (content: string) => createHash('sha256').update(content).digest('hex');

/** Passages of the text and their vectors (each embedded with its object's title, which says what it is about). */
export async function passagesOf(content: string, title: string, embedder: Embedder) {
  const chunks = chunkText(content);
  const vectors = await embedder.embed(chunks.map((c) => `${title}\n${c.text}`));
  return { chunks, vectors };
}

export type { PreparedObject };
