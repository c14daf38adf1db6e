import type { RealmRecord, TokenStore } from './ports';

/** How long a realm or the default realm's id read from a shared store is used again. */
export const REALM_CACHE_MS = 500;
/** Past this many cached realms the cache starts again empty (realm ids come from callers). */
const MAX_REALMS = 1000;

interface Entry<T> {
  at: number;
  value: Promise<T>;
}

/**
 * The store with its realm reads (`realms.get`, `realms.getDefaultId`) kept for `ttlMs` per
 * process: every token request reads its realm, and on a shared store (PostgreSQL) that was two of
 * a token's three round trips. A realm disabled, or the default changed, on another replica is
 * seen here within `ttlMs`; this process's own writes through the returned store (the admin's)
 * are seen at once. Unknown realm ids are not kept (each is read again), so callers naming
 * random realms fill nothing. `now` is a monotonic clock in ms, not the service's (tests move that one).
 */
export function withRealmCache(store: TokenStore, opts: { ttlMs?: number; now?: () => number } = {}): TokenStore {
  const ttlMs = opts.ttlMs ?? REALM_CACHE_MS;
  const now = opts.now ?? (() => performance.now());
  const realms = new Map<string, Entry<RealmRecord | undefined>>();
  let defaultId: Entry<string | undefined> | undefined;
  const fresh = <T>(e: Entry<T> | undefined): e is Entry<T> => e !== undefined && now() - e.at < ttlMs;
  const forget = () => {
    realms.clear();
    defaultId = undefined;
  };

  const get = (id: string): Promise<RealmRecord | undefined> => {
    const cached = realms.get(id);
    if (fresh(cached)) return cached.value;
    if (realms.size >= MAX_REALMS) realms.clear();
    const entry: Entry<RealmRecord | undefined> = { at: now(), value: store.realms.get(id) };
    realms.set(id, entry);
    // Only found realms are kept; a failed read is never kept.
    entry.value.then(
      (r) => r ?? (realms.get(id) === entry && realms.delete(id)),
      () => realms.get(id) === entry && realms.delete(id),
    );
    return entry.value;
  };
  const getDefaultId = (): Promise<string | undefined> => {
    if (fresh(defaultId)) return defaultId.value;
    const entry: Entry<string | undefined> = { at: now(), value: store.realms.getDefaultId() };
    defaultId = entry;
    entry.value.catch(() => defaultId === entry && (defaultId = undefined));
    return entry.value;
  };
  /** A write of this process: what it changes is read again, once it is done (succeeded or not). */
  const writing =
    <A extends unknown[], R>(write: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        return await write(...args);
      } finally {
        forget();
      }
    };

  return {
    ...store,
    realms: {
      ...store.realms,
      get,
      getDefaultId,
      create: writing(store.realms.create.bind(store.realms)),
      setEnabled: writing(store.realms.setEnabled.bind(store.realms)),
      update: writing(store.realms.update.bind(store.realms)),
      setDefaultId: writing(store.realms.setDefaultId.bind(store.realms)),
    },
  };
}
