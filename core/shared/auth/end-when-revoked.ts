import type { Caller } from './caller';
import type { RevocationList, SessionOf } from './revocations';

/** What of a caller the list is checked against. */
export const sessionOfCaller = (c: Pick<Caller, 'realm' | 'sessionId' | 'subject' | 'clientId'>): SessionOf => ({
  realm: c.realm,
  sessionId: c.sessionId,
  subject: c.subject,
  clientId: c.clientId,
});

const ENDED = Symbol('session ended');

/**
 * `items` until one of `sessions` is ended: then the source is returned (the work behind it stops,
 * a model call included) and the stream ends with `last()` (an error event; or `last` throws), at
 * once, even while an item is awaited. A stream that already runs when its caller's session is ended
 * ends within the time the list takes to hear of it (docs/revocation.md).
 */
export function endWhenRevoked<T>(
  items: AsyncIterator<T>,
  sessions: readonly SessionOf[],
  list: Pick<RevocationList, 'watch'>,
  last: () => T,
): AsyncIterableIterator<T> {
  let ended = false;
  let done = false;
  let wake = () => undefined as void;
  const revoked = new Promise<typeof ENDED>((resolve) => {
    wake = () => resolve(ENDED);
  });
  const unwatch = sessions.map((s) =>
    list.watch(s, () => {
      ended = true;
      wake();
    }),
  );
  const finish = () => {
    done = true;
    unwatch.forEach((u) => u());
  };
  const stopSource = () => void Promise.resolve(items.return?.()).catch(() => undefined);
  const iterator: AsyncIterableIterator<T> = {
    async next() {
      if (done) return { done: true, value: undefined };
      const r = ended ? ENDED : await Promise.race([items.next(), revoked]);
      if (r === ENDED) {
        finish();
        stopSource();
        return { done: false, value: last() };
      }
      if (r.done) finish();
      return r;
    },
    async return(value?: unknown) {
      finish();
      await items.return?.(value);
      return { done: true, value: undefined };
    },
    async throw(err?: unknown) {
      finish();
      if (items.throw) return items.throw(err);
      await items.return?.();
      return { done: true, value: undefined };
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
  return iterator;
}
