import { randomUUID } from 'node:crypto';
import type { FailureCounter } from '../../../core/token/ports';
import { useOpened, type Opened } from './store-fixtures';

const MINUTE = 60_000;

/** The failure counter's contract, for any adapter: the token store's own, or Redis (failures-redis.test.ts). */
export function failureCounterContract(name: string, open: () => Promise<Opened<FailureCounter>>) {
  describe(`failure counter contract: ${name}`, () => failureCounterCases(useOpened(open)));
}

export function failureCounterCases(s: () => Opened<FailureCounter>) {
  /** A caller address nobody else counts (cases may share one store). */
  const address = () => `10.${randomUUID()}`;

  it('counts failures per key in a fixed window, seen by the other handle, and starts over once it is over', async () => {
    const { one, two, now, advance } = s();
    const [a, b] = [address(), address()];
    const t0 = now();
    expect(await one.count(a, t0)).toEqual({ count: 0, resetAt: t0 });
    await one.add(a, MINUTE, t0);
    await two.add(a, MINUTE, t0 + 1);
    await two.add(b, MINUTE, t0 + 2);
    expect(await two.count(a, t0 + 3)).toEqual({ count: 2, resetAt: t0 + MINUTE });
    expect(await one.count(b, t0 + 3)).toEqual({ count: 1, resetAt: t0 + 2 + MINUTE });
    await advance(MINUTE);
    expect(await one.count(a, now())).toEqual({ count: 0, resetAt: now() });
    await one.add(a, MINUTE, now());
    expect(await two.count(a, now())).toEqual({ count: 1, resetAt: now() + MINUTE });
  });

  it("reserves exactly the limit of 50 parallel reservations, refusing the rest with the window's end", async () => {
    const { one, two, now } = s();
    const a = address();
    const t0 = now();
    const all = await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 ? two : one).reserve(a, 7, MINUTE, t0)));
    expect(all.filter((r) => r.reserved)).toHaveLength(7);
    expect(
      all
        .filter((r) => r.reserved)
        .map((r) => r.count)
        .sort((x, y) => x - y),
    ).toEqual([1, 2, 3, 4, 5, 6, 7]);
    for (const r of all.filter((x) => !x.reserved)) expect(r).toEqual({ count: 7, resetAt: t0 + MINUTE, reserved: false });
    expect(await two.count(a, t0 + 1)).toEqual({ count: 7, resetAt: t0 + MINUTE });
  });

  it('gives a place back in its own window only, never below zero', async () => {
    const { one, two, now, advance } = s();
    const a = address();
    const first = await one.reserve(a, 1, MINUTE, now());
    expect(first).toEqual({ count: 1, resetAt: now() + MINUTE, reserved: true });
    expect((await two.reserve(a, 1, MINUTE, now())).reserved).toBe(false);
    await two.release(a, first.resetAt);
    expect(await one.count(a, now())).toEqual({ count: 0, resetAt: first.resetAt });
    await two.release(a, first.resetAt);
    expect(await one.count(a, now())).toEqual({ count: 0, resetAt: first.resetAt });
    expect((await two.reserve(a, 1, MINUTE, now())).reserved).toBe(true);
    await advance(MINUTE);
    const current = await one.reserve(a, 1, MINUTE, now());
    expect(current).toEqual({ count: 1, resetAt: now() + MINUTE, reserved: true });
    // A release of the window that is over gives nothing back in the new one.
    await two.release(a, first.resetAt);
    expect((await one.reserve(a, 1, MINUTE, now())).reserved).toBe(false);
    await one.release(a, current.resetAt);
    expect((await two.reserve(a, 1, MINUTE, now())).reserved).toBe(true);
  });

  it('counts failures added at once by both handles, alongside reservations', async () => {
    const { one, two, now } = s();
    const a = address();
    const counts = await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 ? two : one).add(a, MINUTE, now())));
    // Each add answers the count it made: 1 to 50, each once.
    expect([...counts].sort((x, y) => x - y)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect((await one.count(a, now())).count).toBe(50);
    expect(await two.reserve(a, 50, MINUTE, now())).toMatchObject({ count: 50, reserved: false });
    expect(await two.reserve(a, 51, MINUTE, now())).toMatchObject({ count: 51, reserved: true });
  });

  it("forgets a key's window for every handle, leaving other keys; a release of the forgotten window gives nothing back later", async () => {
    const { one, two, now } = s();
    const [a, b] = [address(), address()];
    const held = await one.reserve(a, 3, MINUTE, now());
    await one.add(a, MINUTE, now());
    await one.add(b, MINUTE, now());
    await two.forget(a);
    expect(await one.count(a, now())).toEqual({ count: 0, resetAt: now() });
    expect((await two.count(b, now())).count).toBe(1);
    await two.forget(a); // nothing left to forget
    const again = await two.reserve(a, 3, MINUTE, now() + 1);
    expect(again).toEqual({ count: 1, resetAt: now() + 1 + MINUTE, reserved: true });
    await one.release(a, held.resetAt);
    expect((await one.count(a, now() + 1)).count).toBe(1);
  });

  it('prunes windows that are over and keeps the current ones', async () => {
    const { one, two, now, advance } = s();
    const [old, current] = [address(), address()];
    await one.add(old, MINUTE, now());
    await advance(30_000);
    await one.add(current, MINUTE, now());
    await advance(30_000);
    expect(await two.prune(now())).toBeGreaterThanOrEqual(0);
    expect(await one.count(old, now())).toEqual({ count: 0, resetAt: now() });
    expect(await two.count(current, now())).toEqual({ count: 1, resetAt: now() + 30_000 });
  });
}
