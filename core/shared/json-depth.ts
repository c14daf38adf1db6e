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
 * soon as it knows. Brackets inside strings do not count; a long string is skipped at once, to the
 * quote that closes it (found with indexOf, memchr-fast: the first quote no odd run of backslashes
 * escapes), so a body of one long string (a file in base64) costs next to nothing: a 16 MiB body
 * took 100-180 ms read a character at a time, 1-5 ms so. Malformed text is left to the parser.
 */
export function jsonTextTooDeep(text: string | Buffer, max = MAX_JSON_DEPTH): boolean {
  // As UTF-8, every byte of a character beyond ASCII is 0x80 or more: none reads as a bracket, a quote or a backslash.
  const b = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  let depth = 0;
  for (let i = 0; i < b.length; i++) {
    const c = b[i];
    if (c === 0x22) {
      i = closingQuote(b, i);
      if (i < 0) return false;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/** Where the string opened at `open` closes (-1: never): its first bytes one by one (most strings are short), then by indexOf. */
function closingQuote(b: Buffer, open: number): number {
  const near = Math.min(b.length, open + 64);
  for (let i = open + 1; i < near; i++) {
    const c = b[i];
    if (c === 0x5c) i++;
    else if (c === 0x22) return i;
  }
  if (near === b.length) return -1;
  // The next quote that no odd run of backslashes escapes (a backslash ending the first bytes is in that run too).
  let end = b.indexOf(0x22, near);
  for (;;) {
    if (end < 0) return -1;
    let k = end - 1;
    while (b[k] === 0x5c) k--;
    if ((end - 1 - k) % 2 === 0) return end;
    end = b.indexOf(0x22, end + 1);
  }
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
