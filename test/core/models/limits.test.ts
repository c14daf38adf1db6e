import { RateLimited } from '../../../core/errors';
import type { ApiKey } from '../../../core/models/keys';
import { keyLimits, monthStart } from '../../../core/models/limits';
import { testClock } from '../../helpers';

const key = (over: Partial<ApiKey>): ApiKey => ({
  id: 'k1', prefix: 'lmk-abcdef', name: 'k', tenant: 't', models: null, requestsPerMinute: null, tokenBudget: null,
  createdAt: new Date(0), revokedAt: null, ...over,
});
const refusal = (f: () => void) => {
  try {
    f();
  } catch (err) {
    return err as RateLimited;
  }
  return undefined;
};

describe('key limits', () => {
  it('lets a burst of rpm requests through, then refuses with the wait until the next one, refilling evenly', () => {
    const clock = testClock();
    const limits = keyLimits({ clock, tokensUsed: () => 0 });
    const k = key({ requestsPerMinute: 3 });
    for (let i = 0; i < 3; i++) limits.admit(k);
    const err = refusal(() => limits.admit(k));
    expect(err).toBeInstanceOf(RateLimited);
    expect(err).toMatchObject({ code: 'rate_limit_exceeded', retryAfterSeconds: 20 });
    clock.advance(20_000);
    expect(refusal(() => limits.admit(k))).toBeUndefined();
    expect(refusal(() => limits.admit(k))).toBeInstanceOf(RateLimited);
    // Another key has its own bucket; a key without a limit is never refused.
    limits.admit(key({ id: 'k2', requestsPerMinute: 1 }));
    for (let i = 0; i < 100; i++) limits.admit(key({ id: 'k3' }));
  });

  it('refuses a key whose month of tokens is spent, counting calls at once and starting again next month', () => {
    const clock = testClock(Date.UTC(2026, 4, 31, 23, 59, 0));
    const asked: number[] = [];
    const limits = keyLimits({ clock, tokensUsed: (_id, since) => (asked.push(since), 90), refreshMs: 60_000 });
    const k = key({ tokenBudget: 100 });
    limits.admit(k);
    expect(asked).toEqual([monthStart(clock.now())]);
    limits.spend('k1', 10);
    const err = refusal(() => limits.admit(k));
    expect(err).toMatchObject({ code: 'insufficient_quota', retryAfterSeconds: 60 });
    clock.advance(60_000);
    limits.spend('k1', 0);
    // June: the records are read again from the start of the month (the fake still says 90 < 100).
    expect(refusal(() => limits.admit(k))).toBeUndefined();
    expect(asked.at(-1)).toBe(Date.UTC(2026, 5, 1));
  });
});
