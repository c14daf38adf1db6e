import { uuidv7 } from '../../../core/shared/ids';

describe('uuidv7', () => {
  it('is a version 7, RFC 4122 variant UUID whose first 48 bits are the time', () => {
    const id = uuidv7(Date.UTC(2026, 0, 1));
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(parseInt(id.replace(/-/g, '').slice(0, 12), 16)).toBe(Date.UTC(2026, 0, 1));
  });

  it('sorts by time and never repeats', () => {
    const ids = Array.from({ length: 1000 }, (_, i) => uuidv7(1_700_000_000_000 + Math.floor(i / 10)));
    expect(new Set(ids).size).toBe(1000);
    expect(ids.map((id) => id.slice(0, 13))).toEqual([...ids.map((id) => id.slice(0, 13))].sort());
  });
});
