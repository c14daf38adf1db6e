import { JsonTooDeep, jsonTextTooDeep, parseJsonBounded, valueTooDeep } from '../../../core/shared/json-depth';

const nested = (n: number) => '['.repeat(n) + ']'.repeat(n);

describe('JSON depth bounds', () => {
  it('counts objects and arrays, not brackets inside strings', () => {
    expect(jsonTextTooDeep(nested(3), 3)).toBe(false);
    expect(jsonTextTooDeep(nested(4), 3)).toBe(true);
    expect(jsonTextTooDeep('{"a":{"b":[1]}}', 3)).toBe(false);
    expect(jsonTextTooDeep('{"a":{"b":[{}]}}', 3)).toBe(true);
    expect(jsonTextTooDeep(JSON.stringify({ s: '[[[[[[{{{{ \\" [[[[' }), 1)).toBe(false);
    expect(jsonTextTooDeep(Buffer.from(nested(10)), 9)).toBe(true);
  });

  it('skips a long string at once, to the quote no odd run of backslashes escapes', () => {
    const long = 'a'.repeat(100);
    // Inside: an escaped quote, brackets, an escaped backslash; after it, three levels.
    const text = `["${long}\\"[[[[${long}\\\\", [[1]]]`;
    expect(JSON.parse(text)).toEqual([`${long}"[[[[${long}\\`, [[1]]]);
    expect(jsonTextTooDeep(text, 3)).toBe(false);
    expect(jsonTextTooDeep(text, 2)).toBe(true);
    expect(jsonTextTooDeep(Buffer.from(text), 2)).toBe(true);
    // A backslash run that straddles the first 64 bytes of the string, then the closing quote.
    const straddle = `["${'b'.repeat(62)}${'\\'.repeat(4)}", [[[1]]]]`;
    expect(JSON.parse(straddle)[0]).toBe(`${'b'.repeat(62)}${'\\'.repeat(2)}`);
    expect(jsonTextTooDeep(straddle, 3)).toBe(true);
    expect(jsonTextTooDeep(straddle, 4)).toBe(false);
    // Never closed: nothing after the quote counts.
    expect(jsonTextTooDeep(`["${long}[[[[[[`, 1)).toBe(false);
    // Characters beyond ASCII are no brackets (U+015B's low byte is "[").
    expect(jsonTextTooDeep('["\u015b", "ś", "ś[ś"]', 1)).toBe(false);
    expect(jsonTextTooDeep(`{"v":"${'A'.repeat(16 * 2 ** 20)}"}`, 1)).toBe(false);
  });

  it('measures parsed values without recursion, at any depth', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = { a: deep };
    expect(valueTooDeep(deep, 128)).toBe(true);
    expect(valueTooDeep({ a: [1, { b: 2 }] }, 3)).toBe(false);
    expect(valueTooDeep({ a: [1, { b: {} }] }, 3)).toBe(true);
    expect(valueTooDeep('text', 0)).toBe(false);
  });

  it('refuses deep text before parsing it, with a 400-kind error naming the limit', () => {
    expect(() => parseJsonBounded(nested(5000))).toThrow(JsonTooDeep);
    expect(() => parseJsonBounded(nested(5000))).toThrow(/deeper than 128 levels/);
    expect(new JsonTooDeep(128).kind).toBe('bad_request');
    expect(parseJsonBounded('{"a":[1,2]}')).toEqual({ a: [1, 2] });
  });
});
