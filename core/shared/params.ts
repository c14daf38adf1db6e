import { z } from 'zod';
import { MAX_JSON_DEPTH, parseJsonBounded } from './json-depth';

/**
 * Field types for values that arrive as text (query strings, form bodies) and may arrive typed
 * (JSON bodies). A scalar sent twice takes the last value, as FastAPI does; arrays are the
 * repeated key (`tags=a&tags=b`); objects (kvp, taxonomy) are JSON text.
 */
/** A value sent twice (an array from a query string) read as its last. */
export const last = (v: unknown): unknown => (Array.isArray(v) ? v.at(-1) : v);

const numeric = (int: boolean) => (v: unknown) => {
  const x = last(v);
  if (typeof x !== 'string') return x;
  const t = x.trim();
  return (int ? /^[-+]?\d+$/ : /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/).test(t) ? Number(t) : x;
};

/**
 * zod reports any non-number given to z.int() as `expected: number`, which would read as pydantic's
 * float_parsing/float_type; an int field must say int_parsing/int_type, so they are raised here.
 */
const integer = (v: unknown, ctx: z.core.$RefinementCtx) => {
  const x = numeric(true)(v);
  if (x === undefined || typeof x === 'number') return x;
  ctx.addIssue(
    typeof x === 'string'
      ? {
          code: 'custom',
          input: x,
          params: { type: 'int_parsing' },
          message: 'Input should be a valid integer, unable to parse string as an integer',
        }
      : { code: 'custom', input: x, params: { type: 'int_type' }, message: 'Input should be a valid integer' },
  );
  return z.NEVER;
};

const TRUE = new Set(['true', '1', 'yes', 'on', 't', 'y']);
const FALSE = new Set(['false', '0', 'no', 'off', 'f', 'n']);
const boolish = (v: unknown) => {
  const x = last(v);
  if (typeof x !== 'string') return x;
  const t = x.trim().toLowerCase();
  return TRUE.has(t) ? true : FALSE.has(t) ? false : x;
};

const jsonText = (v: unknown) => {
  const x = last(v);
  if (typeof x !== 'string') return x;
  try {
    // JsonTooDeep (a 400 naming the limit) is not caught: text too deep is refused, not read as a string.
    return parseJsonBounded(x, MAX_JSON_DEPTH, 'A JSON query parameter');
  } catch (err) {
    if (err instanceof SyntaxError) return x;
    throw err;
  }
};

export const param = {
  string: () => z.preprocess(last, z.string()),
  /** Any 8-4-4-4-12 hex identifier (realm ids need not be RFC 4122 variants). */
  uuid: () => z.preprocess(last, z.guid()),
  /** A string that must not be empty (a mandatory identifier). */
  id: () => z.preprocess(last, z.string().min(1)),
  int: () => z.preprocess(integer, z.int()),
  number: () => z.preprocess(numeric(false), z.number()),
  bool: () => z.preprocess(boolish, z.boolean()),
  /** Repeated key, or one comma-free value, or a JSON array in a JSON body. */
  array: () => z.preprocess((v) => (v === undefined || Array.isArray(v) ? v : [v]), z.array(z.string())),
  object: () => z.preprocess(jsonText, z.record(z.string(), z.unknown())),
};
