import { Client } from 'pg';
import type { PgPool } from './pool';

/** What a change feed is: the channel its writes notify (with the change's id) and its durable table. */
export interface FeedTable {
  /** Notified in each write's transaction, with the new row's id as payload. */
  channel: string;
  /** Its `id` column only grows. */
  table: string;
  /** The listening connection's application_name (pg_stat_activity shows it). */
  listenerName: string;
}

export interface WatchOptions {
  /** Listen for notifications (default); without, only the poll moves the version (a command that does not follow it). */
  listen?: boolean;
  /** How often the changes table is read in case a notification was missed (ms). */
  pollMs?: number;
  /** How long to wait before listening again after the listening connection dropped (ms). */
  reconnectMs?: number;
  /** A failure to listen or to poll (the server is down or restarting), told once until it works again; the watch keeps trying. */
  onError?: (err: Error) => void;
  /** Told each time the version moves (a change not seen before was heard of). */
  onChange?: () => void;
}

export interface ChangeWatch {
  /** Moves whenever a change not seen before was heard of: synchronous, in memory. */
  version(this: void): string;
  /** A change this process committed (its notification, when it comes back, is not counted again). */
  saw(this: void, changeId: number): void;
  close(): Promise<void>;
}

const SEEN_KEPT = 10_000;

/**
 * A change feed's data version on PostgreSQL (search's changes, the token service's revocations): a
 * counter in memory, moved by
 * - this process's own commits (at once),
 * - `LISTEN <channel>` on one dedicated connection (another replica's commit, within
 *   milliseconds); when that connection drops it is opened again, and the version moves once it
 *   listens again, since changes may have gone unheard meanwhile,
 * - a poll of the changes table's highest id every `pollMs` (a fallback that needs no notification;
 *   the first, at open, only notes where the table stands, and covers the moment before the
 *   listening connection is up).
 * Each change id moves it once, however it was heard of, so a read never moves it and a write
 * moves it once on every replica. Readers catch up from the durable table, so what
 * the version only signals is never lost.
 */
export function changeWatch(pool: PgPool, feed: FeedTable, opts: WatchOptions = {}): ChangeWatch {
  const pollMs = opts.pollMs ?? 1000;
  const reconnectMs = opts.reconnectMs ?? 1000;
  // Told once per outage of each (listening, polling), not at every retry: a success makes the next failure worth telling.
  const failing = { listen: false, poll: false };
  const failed = (what: keyof typeof failing, err: Error) => {
    if (!failing[what]) (opts.onError ?? (() => undefined))(err);
    failing[what] = true;
  };
  let counter = 0;
  let highest = 0;
  const seen = new Set<number>();
  let closed = false;
  let listener: Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  /** Whether a listening connection was ever tried: only the very first one, at open, does not move the version. */
  let listenedBefore = false;

  const moved = () => {
    counter++;
    opts.onChange?.();
  };
  const saw = (id: number) => {
    if (!Number.isSafeInteger(id) || seen.has(id)) return;
    seen.add(id);
    if (seen.size > SEEN_KEPT) {
      // Insertion order: the oldest go first.
      let drop = seen.size - SEEN_KEPT / 2;
      for (const old of seen) {
        if (drop-- <= 0) break;
        seen.delete(old);
      }
    }
    highest = Math.max(highest, id);
    moved();
  };

  const listen = () => {
    if (closed) return;
    const client = new Client({ ...pool.options, application_name: feed.listenerName });
    listener = client;
    const dropped = (err?: Error) => {
      if (listener !== client) return;
      listener = undefined;
      listenedBefore = true;
      if (err) failed('listen', err);
      client.end().catch(() => undefined);
      if (!closed) retry = setTimeout(listen, reconnectMs).unref();
    };
    client.on('notification', (m) => saw(Number(m.payload)));
    client.on('error', dropped);
    client.on('end', () => dropped());
    client
      .connect()
      .then(() => client.query(`LISTEN ${feed.channel}`))
      .then(() => {
        // Listening again: whatever happened while nobody listened is caught up from the table.
        if (listener === client && listenedBefore) moved();
        listenedBefore = true;
        failing.listen = false;
      }, dropped);
  };

  let polling = false;
  /** The first poll, if it works, only notes where the table is: the version starts from there. */
  let baseline = true;
  const readHighest = () => {
    if (polling || closed) return;
    polling = true;
    pool
      .query<{ id: string | null }>({ name: `${feed.table}.highest`, text: `SELECT max(id) AS id FROM ${feed.table}` })
      .then(
        ({ rows }) => {
          const id = Number(rows[0]?.id ?? 0);
          if (baseline) highest = Math.max(highest, id);
          else if (id > highest) saw(id);
          baseline = false;
          failing.poll = false;
        },
        (err: Error) => {
          baseline = false;
          failed('poll', err);
        },
      )
      .finally(() => {
        polling = false;
      });
  };
  readHighest();
  const poll = setInterval(readHighest, pollMs);
  poll.unref();
  if (opts.listen ?? true) listen();

  return {
    version: () => `pg.${counter}`,
    saw,
    close: async () => {
      closed = true;
      clearInterval(poll);
      if (retry) clearTimeout(retry);
      const client = listener;
      listener = undefined;
      await client?.end().catch(() => undefined);
    },
  };
}
