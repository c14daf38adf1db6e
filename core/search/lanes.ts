/**
 * One lane per key: work queued on a key runs after the work queued before it on the same key has
 * settled, whatever its outcome. The in-memory indexes catch up with the store through
 * asynchronous reads; their lane keeps two catch-ups of one tenant from adding the same passages
 * twice, while other tenants' go on beside them.
 */
export function lanes() {
  const tails = new Map<string, Promise<unknown>>();
  return <T>(key: string, work: () => Promise<T>): Promise<T> => {
    const run = (tails.get(key) ?? Promise.resolve()).then(work, work);
    const tail = run.catch(() => undefined);
    tails.set(key, tail);
    void tail.then(() => {
      if (tails.get(key) === tail) tails.delete(key);
    });
    return run;
  };
}
