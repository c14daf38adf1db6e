import { z } from 'zod';
import { param } from '../params';
import { dateRange, jsonObject, list, MAX_PAGE_SIZE, MAX_QUERY_CHARS, queryString, taxonomy } from './inputs';
import type { JsonObject } from './types';

/**
 * v1 inputs: URL query parameters for POST and GET alike (the spec's examples); basic search also
 * takes its example's JSON body `{"query_dictionary": {...}, "source": "..."}`. `query_string`,
 * `start` and `size` are required as the spec lists them; the filters may be left out (DECISIONS).
 * `min_relevant_score` is a percentage (0-100).
 */
/** kvp as an object, or (the fulltext table lists it as a list) a list of objects taken together. */
const kvp = () => z.union([jsonObject(), z.array(jsonObject()).max(100)])
  .transform((v): JsonObject => (Array.isArray(v) ? Object.assign({}, ...v) as JsonObject : v));

const start = () => param.int().check(z.gte(1));
const size = () => param.int().check(z.gte(1), z.lte(MAX_PAGE_SIZE));
const topK = () => param.int().check(z.gte(1), z.lte(MAX_PAGE_SIZE)).default(5);

const filters = { tags: list().optional(), folders: list().optional(), repos: list().optional(), kvp: kvp().optional(), taxonomy: taxonomy().optional() };

export const V1Search = z.object({
  query_string: queryString(),
  start: start(),
  size: size(),
  min_relevant_score: param.number().check(z.gte(0), z.lte(100)).default(0),
  ...filters,
});

export const V1Basic = z.object({
  /** A string, or (listed as an object) an object whose text values are the words. */
  query_string: z.union([z.string().max(MAX_QUERY_CHARS), jsonObject()]).optional()
    .transform((q) => (typeof q === 'object' ? Object.values(q).filter((v) => typeof v === 'string').join(' ') : q ?? '')),
  start: start(),
  size: size(),
  kvp: kvp().optional(),
  tags: list().optional(),
  repos: list().optional(),
  folders: list().optional(),
  created_between: dateRange().optional(),
  modified_between: dateRange().optional(),
  deleted_between: dateRange().optional(),
  source: z.string().max(200).optional(),
});

export const V1Passages = z.object({
  query_string: queryString(),
  top_k: topK(),
  re_ranked: param.bool().default(true),
  object_ids: list().optional(),
  ...filters,
});

export const V1Lite = z.object({
  query_string: queryString(),
  top_k: topK(),
  re_ranked: param.bool().default(false),
});
