import { backoff, pause, retryAfterMs, retryDelay, type RetryPolicy } from '../../../../core/shared/http/retry';

const now = Date.UTC(2026, 0, 1, 12, 0, 0);

describe('Retry-After', () => {
  it('reads delay-seconds (whole or not)', () => {
    expect(retryAfterMs({ 'retry-after': '7' }, now)).toBe(7000);
    expect(retryAfterMs({ 'retry-after': ' 0 ' }, now)).toBe(0);
    expect(retryAfterMs({ 'retry-after': '1.5' }, now)).toBe(1500);
  });

  it('reads an HTTP date as the time left until then, never negative', () => {
    expect(retryAfterMs({ 'retry-after': new Date(now + 30_000).toUTCString() }, now)).toBe(30_000);
    expect(retryAfterMs({ 'retry-after': 'Thu, 01 Jan 2026 12:01:00 GMT' }, now)).toBe(60_000);
    expect(retryAfterMs({ 'retry-after': new Date(now - 30_000).toUTCString() }, now)).toBe(0);
  });

  it("prefers Azure's retry-after-ms, in milliseconds", () => {
    expect(retryAfterMs({ 'retry-after-ms': '250', 'retry-after': '3' }, now)).toBe(250);
    expect(retryAfterMs({ 'retry-after-ms': '12.5' }, now)).toBe(12.5);
    // A value that is not a number falls back to Retry-After.
    expect(retryAfterMs({ 'retry-after-ms': 'soon', 'retry-after': '2' }, now)).toBe(2000);
  });

  it('ignores what it cannot read, and takes the first of repeated headers', () => {
    expect(retryAfterMs({ 'retry-after': 'soon' }, now)).toBeUndefined();
    expect(retryAfterMs({ 'retry-after': '-3' }, now)).toBeUndefined();
    expect(retryAfterMs({}, now)).toBeUndefined();
    expect(retryAfterMs({ 'retry-after': ['4', '9'] }, now)).toBe(4000);
  });
});

describe('retry policy', () => {
  const vendor: RetryPolicy = { retries: 2, retryStatus: (s) => s === 429 || s >= 500, backoffMs: 100, budgetMs: 1000 };
  const ours: RetryPolicy = { retries: 2, retryStatus: (s) => s === 429 || s === 503, budgetMs: 5000 };
  const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
  const status = (s: number, headers: Record<string, string> = {}) => ({ status: s, headers });

  it('backs off exponentially, with jitter between half and all of the doubled delay', () => {
    expect(backoff(100, 0, () => 0)).toBe(50);
    expect(backoff(100, 0, () => 1)).toBe(100);
    expect(backoff(100, 2, () => 0)).toBe(200);
    expect(backoff(100, 2, () => 1)).toBe(400);
    for (let i = 0; i < 50; i++) {
      const d = retryDelay(vendor, 1, 0, status(500))!;
      expect(d).toBeGreaterThanOrEqual(100);
      expect(d).toBeLessThanOrEqual(200);
    }
  });

  it('retries the statuses it names and a failed connection, as many times as it says', () => {
    expect(retryDelay(vendor, 0, 0, status(429))).toBeDefined();
    expect(retryDelay(vendor, 0, 0, status(502))).toBeDefined();
    expect(retryDelay(vendor, 0, 0, { error: refused })).toBeDefined();
    expect(retryDelay(vendor, 2, 0, status(500))).toBeUndefined();
    expect(retryDelay(vendor, 0, 0, status(400))).toBeUndefined();
    expect(retryDelay(vendor, 0, 0, status(401))).toBeUndefined();
    // A timeout or any other failure is not a failed connection: the request may have been served.
    expect(retryDelay(vendor, 0, 0, { error: Object.assign(new Error('x'), { code: 'UND_ERR_HEADERS_TIMEOUT' }) })).toBeUndefined();
    expect(retryDelay(vendor, 0, 0, { error: new Error('x') })).toBeUndefined();
  });

  it('waits as the answer says (seconds, date, retry-after-ms), within the budget of the whole call', () => {
    expect(retryDelay(vendor, 0, 0, status(429, { 'retry-after': '1' }), now)).toBe(1000);
    expect(retryDelay(ours, 0, 0, status(503, { 'retry-after': new Date(now + 3000).toUTCString() }), now)).toBe(3000);
    expect(retryDelay(vendor, 0, 0, status(429, { 'retry-after-ms': '20' }), now)).toBe(20);
    expect(retryDelay(vendor, 0, 0, status(429, { 'retry-after': '2' }), now)).toBeUndefined();
    expect(retryDelay(vendor, 1, 900, status(429, { 'retry-after-ms': '150' }), now)).toBeUndefined();
    expect(retryDelay(vendor, 1, 900, status(429, { 'retry-after-ms': '100' }), now)).toBe(100);
  });

  it('between our services retries only an answer that names its wait', () => {
    expect(retryDelay(ours, 0, 0, status(429, { 'retry-after': '1' }))).toBe(1000);
    expect(retryDelay(ours, 0, 0, status(503, { 'retry-after': '0' }))).toBe(0);
    expect(retryDelay(ours, 0, 0, status(503))).toBeUndefined();
    expect(retryDelay(ours, 0, 0, status(500, { 'retry-after': '1' }))).toBeUndefined();
    expect(retryDelay(ours, 0, 0, { error: refused })).toBeUndefined();
    expect(retryDelay(ours, 0, 4500, status(429, { 'retry-after': '1' }))).toBeUndefined();
  });

  it('never sleeps past the signal: the wait ends with its reason', async () => {
    const caller = new AbortController();
    // An hour: only the signal can end this wait within the test's life.
    let settled = false;
    const waiting = pause(3_600_000, caller.signal).finally(() => (settled = true));
    await new Promise((r) => setImmediate(r));
    expect(settled).toBe(false);
    caller.abort(new Error('caller left'));
    await expect(waiting).rejects.toThrow('caller left');
    await expect(pause(10, caller.signal)).rejects.toThrow('caller left');
    await expect(pause(5)).resolves.toBeUndefined();
  });
});
