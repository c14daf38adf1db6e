import { BadRequest } from './errors';

/**
 * How deeply JSON may nest (objects and arrays) anywhere the platform parses it: request bodies,
 * GraphQL variables, option strings, WebSocket messages. Real requests nest a few levels (a JSON
 * schema in a tool definition perhaps 20); thousands of levels only serve to overflow the stack of
 * whatever walks the value afterwards.
 */
export const MAX_JSON_DEPTH = 128;

export class JsonTooDeep extends BadRequest {
  constructor(
    readonly limit: number,
    what = 'JSON',
  ) {
    super(`${what} nests deeper than ${limit} levels`, { code: 'json_too_deep' });
  }
}

/**
 * Whether JSON text nests deeper than `max`: one linear scan of the text, no recursion, stopping as
 * soon as it knows. Brackets inside strings do not count. Malformed text is left to the parser.
 */
export function jsonTextTooDeep(text: string | Buffer, max = MAX_JSON_DEPTH): boolean {
  const s = typeof text === 'string' ? text : text.toString('latin1'); // brackets and quotes are ASCII
  let depth = 0;
  let inString = false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/** Whether a parsed value nests deeper than `max` (iterative: safe on any depth). */
export function valueTooDeep(value: unknown, max = MAX_JSON_DEPTH): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [v, d] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (d + 1 > max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (child !== null && typeof child === 'object') stack.push([child, d + 1]);
    }
  }
  return false;
}

/** JSON.parse that refuses (JsonTooDeep) text nesting deeper than `max` before parsing it. */
export function parseJsonBounded(text: string, max = MAX_JSON_DEPTH, what?: string): unknown {
  if (jsonTextTooDeep(text, max)) throw new JsonTooDeep(max, what);
  return JSON.parse(text);
}
