/** How often the registered origins are read again while requests from unknown origins come (at most). */
export const WEB_ORIGINS_RELOAD_MS = 1000;
/** How long a list read is used for origins it holds before it is read again in the background. */
export const WEB_ORIGINS_FRESH_MS = 10_000;

/**
 * The web origins clients registered (the token service's list), for CORS: an origin not in the
 * list read last makes it read again, at most once a second whatever the callers send, so a client
 * registered a moment ago is allowed on its first request; a list that cannot be read leaves the
 * last one in place (none at first).
 */
export function webOriginsFollower(load: () => Promise<string[]>, now: () => number = () => performance.now()) {
  let known = new Set<string>();
  let readAt = -Infinity;
  let reading: Promise<void> | undefined;
  const read = () =>
    (reading ??= load()
      .then(
        (origins) => void (known = new Set(origins)),
        () => undefined,
      )
      .finally(() => {
        readAt = now();
        reading = undefined;
      }));
  return {
    async allowed(origin: string): Promise<boolean> {
      const age = now() - readAt;
      if (known.has(origin)) {
        if (age > WEB_ORIGINS_FRESH_MS) void read();
        return true;
      }
      if (age > WEB_ORIGINS_RELOAD_MS) await read();
      return known.has(origin);
    },
  };
}

export type WebOrigins = ReturnType<typeof webOriginsFollower>;
