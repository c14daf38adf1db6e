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
