import type { Revocation, RevocationList } from './revocations';

/** Where a reader of the feed stands: which feed (a store's own id) and the last entry it has. */
export interface FeedCursor {
  feed: string;
  after: number;
}

export interface FeedBatch {
  cursor: FeedCursor;
  entries: Revocation[];
  /** Every current entry (the list is replaced), not only those after the cursor. */
  full: boolean;
}

/**
 * Port: the revoked-sessions feed of the token service's store (token.db, PostgreSQL) or of its
 * public endpoint. Entries are numbered in the order they were committed.
 */
export interface RevocationFeed {
  /**
   * The entries after `cursor`; every current one (`full`) when there is no cursor, or it names
   * another feed (another store), or it stands past this feed's last entry (a store restored from
   * an older backup).
   */
  read(cursor?: FeedCursor): Promise<FeedBatch>;
  /** Calls `changed` whenever entries may have been added (a notification, a poll); returns the stop. */
  follow(changed: () => void): () => void;
}

export interface FollowOptions {
  /** Told once per outage when a read fails (the follower keeps its list and tries again at the next change or tick). */
  onError?(err: Error): void;
  /** Told when reads work again after an outage. */
  onRecovery?(): void;
  /** How often expired entries are dropped (default 10 s). */
  pruneEveryMs?: number;
}

export interface RevocationFollower {
  /** The first full read: the list is current when it resolves (it rejects when that read fails). */
  start(): Promise<void>;
  /** Whether the first read is done. */
  loaded(): boolean;
  /** Reads what is new, once a read already running is done (a revocation made in this process is then refused here). */
  refresh(): Promise<void>;
  close(): void;
}

/**
 * Keeps `list` current from `feed`: a full read at start, then the entries after the last one read
 * whenever the feed says something changed (each feed has its own fallback poll). Reads never overlap; a change heard
 * during a read is read after it, so nothing heard is left unread. A read that fails leaves the list
 * as it was (the next one catches up from the same cursor).
 */
export function followRevocations(feed: RevocationFeed, list: RevocationList, opts: FollowOptions = {}): RevocationFollower {
  let cursor: FeedCursor | undefined;
  let tail: Promise<void> = Promise.resolve();
  let queued: Promise<void> | undefined;
  let failing = false;
  let closed = false;
  let stopFollowing: (() => void) | undefined;
  let timer: NodeJS.Timeout | undefined;

  const readOnce = async () => {
    try {
      const batch = await feed.read(cursor);
      list.apply(batch.entries, batch.full);
      cursor = batch.cursor;
      if (failing) opts.onRecovery?.();
      failing = false;
    } catch (err) {
      if (!failing) opts.onError?.(err as Error);
      failing = true;
      throw err;
    }
  };

  const refresh = (): Promise<void> => {
    // A read not yet begun will see whatever changed up to now: share it.
    if (queued) return queued;
    const next = tail.then(() => {
      queued = undefined;
      return readOnce();
    });
    queued = next;
    tail = next.catch(() => undefined);
    return next;
  };
  const quietly = () => void refresh().catch(() => undefined);

  return {
    async start() {
      stopFollowing ??= feed.follow(() => !closed && quietly());
      await refresh();
      timer ??= setInterval(() => list.prune(), opts.pruneEveryMs ?? 10_000);
      timer.unref();
    },
    loaded: () => cursor !== undefined,
    refresh,
    close() {
      closed = true;
      stopFollowing?.();
      if (timer) clearInterval(timer);
    },
  };
}
