import { z } from 'zod';
import { BadRequest } from '../../shared/errors';
import { JsonTooDeep, MAX_JSON_DEPTH, valueTooDeep } from '../../shared/json-depth';

/**
 * The `api-key` header (DECISIONS): `<key>` or `<key>/<options>`, the options a JSON object or a
 * Python dict literal (single quotes, True/False/None). Unknown options are ignored; a bad value is
 * a 400 naming the option.
 */
const int = (allowed: readonly number[]) =>
  z.preprocess(
    (v) => (typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v),
    z.union(allowed.map((n) => z.literal(n)) as [z.ZodLiteral<number>, z.ZodLiteral<number>, ...z.ZodLiteral<number>[]]),
  );
const idLike = z.union([z.string().max(200), z.int()]);
const count = z.int().min(0);

export const KeyOptions = z.object({
  is_cache: int([0, 1]).default(1),
  use_guard: int([0, 1, 2]).default(1),
  app_name: z.string().max(200).optional(),
  Bot_Id: z.string().max(200).optional(),
  Query_Id: idLike.optional(),
  word_count_sent: count.optional(),
  word_count_received: count.optional(),
  toxicity: z.string().max(100).optional(),
  sentiment: z.string().max(100).optional(),
  userid: idLike.optional(),
  is_system: z.boolean().default(true),
  /** The semantic cache's similarity threshold (answers/semantic-cache.ts); absent: off; ignored when `is_cache` is 0. */
  semantic_cache: z.preprocess((v) => (typeof v === 'string' && /^\d*\.?\d+$/.test(v) ? Number(v) : v), z.number().gt(0).max(1)).optional(),
});
export type KeyOptions = z.output<typeof KeyOptions>;

export class BadKeyOption extends BadRequest {
  constructor(message: string) {
    super(message, { code: 'invalid_key_option' });
  }
}

/** A Python dict literal as JSON text: single-quoted strings, True, False and None. */
export function pythonLiteralToJson(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "'" || c === '"') {
      let s = '';
      for (i++; i < text.length && text[i] !== c; i++) {
        if (text[i] === '\\' && i + 1 < text.length) {
          i++;
          s += text[i] === 'n' ? '\n' : text[i] === 't' ? '\t' : text[i];
        } else {
          s += text[i];
        }
      }
      if (i >= text.length) throw new BadKeyOption('The api-key options are not a JSON object or dict: a string is not closed');
      out += JSON.stringify(s);
      continue;
    }
    const word = /^(True|False|None)\b/.exec(text.slice(i));
    if (word) {
      out += { True: 'true', False: 'false', None: 'null' }[word[1] as 'True' | 'False' | 'None'];
      i += word[1].length - 1;
      continue;
    }
    out += c;
  }
  return out;
}

/** Options texts seen lately: callers send the same few strings on every call, so each is parsed once. */
const seen = new Map<string, KeyOptions>();
const SEEN_MAX = 1000;

/** Splits the header value into the key and its validated options. */
export function parseApiKeyHeader(value: string): { key: string; options: KeyOptions } {
  const slash = value.indexOf('/');
  const key = (slash < 0 ? value : value.slice(0, slash)).trim();
  const text = slash < 0 ? '' : value.slice(slash + 1).trim();
  let options = seen.get(text);
  if (!options) {
    options = Object.freeze(parseOptions(text));
    if (seen.size >= SEEN_MAX) seen.delete(seen.keys().next().value!);
    seen.set(text, options);
  }
  return { key, options };
}

function parseOptions(text: string): KeyOptions {
  let raw: unknown = {};
  if (text) {
    try {
      raw = JSON.parse(text);
    } catch {
      try {
        raw = JSON.parse(pythonLiteralToJson(text));
      } catch (err) {
        throw err instanceof BadKeyOption ? err : new BadKeyOption('The api-key options are not a JSON object or dict');
      }
    }
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
      throw new BadKeyOption('The api-key options are not a JSON object or dict');
    // Parsing is safe at any depth; what walks the options afterwards is not.
    if (valueTooDeep(raw)) throw new JsonTooDeep(MAX_JSON_DEPTH, 'The api-key option string');
  }
  // None / null means not given.
  const given = Object.fromEntries(Object.entries(raw as Record<string, unknown>).filter(([, v]) => v !== null));
  const parsed = KeyOptions.safeParse(given);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const name = String(issue.path[0] ?? 'options');
    throw new BadKeyOption(`Invalid api-key option '${name}': ${optionHint(name)}`);
  }
  return parsed.data;
}

const optionHint = (name: string) =>
  ({
    is_cache: 'must be 0 or 1',
    use_guard: 'must be 0, 1 or 2',
    is_system: 'must be true or false',
    semantic_cache: 'must be a number greater than 0 and at most 1 (a similarity threshold)',
    word_count_sent: 'must be a whole number',
    word_count_received: 'must be a whole number',
    Query_Id: 'must be a string or an integer',
    userid: 'must be a string or an integer',
  })[name] ?? 'must be a string of at most 200 characters';
