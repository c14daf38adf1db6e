import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Waiting in a test for something to happen: polls `check` until it holds, and fails naming what it
 * waited for once `timeoutMs` has passed. The deadline only turns a hang into a clear failure; it is
 * no assertion on speed, so it is generous (a machine under load is slow, not wrong) and a test
 * never asserts on the time this resolves with (it is for reports: "seen after 40 ms").
 *
 * A test waits for the event itself (this, a promise, an event listener), never with a fixed sleep:
 * test/shared/no-wall-clock.test.ts keeps it so.
 */
export async function eventually(check: () => boolean | Promise<boolean>, timeoutMs = 20_000, everyMs = 25): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await check()) return Date.now() - started;
    if (Date.now() - started > timeoutMs) throw new Error(`not within ${timeoutMs} ms: ${String(check).slice(0, 300)}`);
    await sleep(everyMs);
  }
}
