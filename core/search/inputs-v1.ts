import { z } from 'zod';
import { parseJsonBounded } from '../shared/json-depth';
import { last, param } from '../shared/params';
import { isPlainObject } from '../shared/validation';
import { dateRange, jsonObject, list, MAX_PAGE_SIZE, MAX_QUERY_CHARS, queryString, taxonomy } from './inputs';
import type { JsonObject } from './types';

/**
 * v1 inputs: URL query parameters for POST and GET alike (the spec's examples); basic search also
 * takes its example's JSON body `{"query_dictionary": {...}, "source": "..."}`. The scalars the
 * spec lists as mandatory are required (`query_string`, `start`, `size`, `min_relevant_score` of
 * semantic and fulltext, `re_ranked` of search and search_lite; `top_k` has its default); the
 * filters may be left out (DECISIONS). `min_relevant_score` is an integer percentage (0-100).
 */
/** kvp as an object, or (the fulltext table lists it as a list) a list of objects taken together. */
const kvp = () =>
  z
    .union([jsonObject(), z.array(jsonObject()).max(100)])
    .transform((v): JsonObject => (Array.isArray(v) ? (Object.assign({}, ...v) as JsonObject) : v));

const start = () => param.int().check(z.gte(1));
const size = () => param.int().check(z.gte(1), z.lte(MAX_PAGE_SIZE));
const topK = () => param.int().check(z.gte(1), z.lte(MAX_PAGE_SIZE)).default(5);

const filters = {
  tags: list().optional(),
  folders: list().optional(),
  repos: list().optional(),
  kvp: kvp().optional(),
  taxonomy: taxonomy().optional(),
};

export const V1Search = z.object({
  query_string: queryString(),
  start: start(),
  size: size(),
  min_relevant_score: param.int().check(z.gte(0), z.lte(100)),
  ...filters,
});

/**
 * Basic search's `query_string` is listed as an object: in a URL it is JSON text, which selects
 * what the same object selects in a body. Text that is not a JSON object is the words themselves.
 */
const objectText = (v: unknown) => {
  const x = last(v);
  if (typeof x !== 'string' || !/^\s*\{[^]*\}\s*$/.test(x)) return x;
  try {
    const parsed = parseJsonBounded(x); // too deep: a 400 naming the limit
    return isPlainObject(parsed) ? parsed : x;
  } catch (err) {
    if (err instanceof SyntaxError) return x;
    throw err;
  }
};

export const V1Basic = z.object({
  /** A string, or (listed as an object) an object whose text values are the words. */
  query_string: z
    .preprocess(objectText, z.union([z.string().max(MAX_QUERY_CHARS), jsonObject()]))
    .optional()
    .transform((q) =>
      typeof q === 'object'
        ? Object.values(q)
            .filter((v) => typeof v === 'string')
            .join(' ')
        : (q ?? ''),
    ),
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
  re_ranked: param.bool(),
  object_ids: list().optional(),
  ...filters,
});

export const V1Lite = z.object({
  query_string: queryString(),
  top_k: topK(),
  re_ranked: param.bool(),
});
