import { describeError, recentErrors, RECENT_ERRORS, safeText } from '../../../../core/shared/telemetry/recent-errors';
import { testClock } from '../../../shared/helpers';

/** core/shared/telemetry/recent-errors.ts: a process's last server-side errors, bounded, newest first, safe to show. */
describe('the recent errors of a process', () => {
  const failure = (i: number) => ({ service: 'models', where: 'POST /proxy/api/v1/models', code: 'upstream', message: `failure ${i}` });

  it('keeps the last 50, newest first, each with the time it was recorded', () => {
    const clock = testClock();
    const ring = recentErrors({ clock });
    for (let i = 0; i < RECENT_ERRORS + 7; i++) {
      ring.record(failure(i));
      clock.advance(1000);
    }
    const list = ring.list();
    expect(RECENT_ERRORS).toBe(50);
    expect(list).toHaveLength(50);
    expect(list[0].message).toBe('failure 56');
    expect(list[49].message).toBe('failure 7');
    expect(list[0].at - list[1].at).toBe(1000);
  });

  it('takes a smaller capacity, and its list is a copy', () => {
    const ring = recentErrors({ clock: testClock(), capacity: 2 });
    [1, 2, 3].forEach((i) => ring.record(failure(i)));
    const list = ring.list();
    list.pop();
    expect(ring.list().map((e) => e.message)).toEqual(['failure 3', 'failure 2']);
  });

  it('keeps a well-formed request id only', () => {
    const ring = recentErrors({ clock: testClock() });
    ring.record({ ...failure(1), requestId: 'req-1:a.b' });
    ring.record({ ...failure(2), requestId: 'bad id\nwith a line' });
    expect(ring.list().map((e) => e.requestId)).toEqual([undefined, 'req-1:a.b']);
  });

  it('shows no stack, token, key, password or query string', () => {
    const jwt = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhIn0.c2lnbmF0dXJl';
    const cases: [string, string][] = [
      ['Error: boom\n    at handler (/srv/app.js:10:5)\n    at next', 'Error: boom'],
      [`rejected Authorization: Bearer ${jwt}`, 'rejected Authorization: Bearer [redacted]'],
      [`token ${jwt} expired`, 'token [token] expired'],
      ['cannot reach postgres://app:hunter2@db:5432/platform', 'cannot reach postgres://[redacted]@db:5432/platform'],
      ['GET https://vendor.test/v1/chat?key=AIzaSyA-secret-value&x=1 failed', 'GET https://vendor.test/v1/chat?[redacted] failed'],
      ['upstream said api_key=abc123 and password: "pw-1"', 'upstream said api_key=[redacted] and password: "[redacted]"'],
      ['the key lmk-AbCdEfGh12345678 was refused', 'the key [redacted] was refused'],
      ['vendor key sk-proj-abcdefghijklmnop1234', 'vendor key [redacted]'],
      [`opaque ${'x'.repeat(12)}${'A1b2C3d4'.repeat(6)} here`, 'opaque [redacted] here'],
    ];
    for (const [text, shown] of cases) expect(safeText(text)).toBe(shown);
  });

  it('cuts long messages and control characters', () => {
    const long = safeText('word '.repeat(200));
    expect(long.length).toBeLessThanOrEqual(300);
    expect(long.endsWith('…')).toBe(true);
    expect(safeText('a\tb\u0007c')).toBe('a b c');
  });

  it('describes an error by its class and message, made safe; what is recorded is made safe too', () => {
    expect(describeError(new TypeError("Cannot read properties of undefined (reading 'x')"))).toBe(
      "TypeError: Cannot read properties of undefined (reading 'x')",
    );
    expect(describeError(new Error('plain'))).toBe('plain');
    expect(describeError('a string')).toBe('a string');
    expect(describeError({ some: 'object' })).toBe('unknown error');
    const ring = recentErrors({ clock: testClock() });
    ring.record({ service: 'chat', where: 'POST /x?token=abc', code: 'internal', message: 'password=hunter2\nstack' });
    expect(ring.list()[0]).toMatchObject({ where: 'POST /x?token=[redacted]', message: 'password=[redacted]' });
  });
});
