import type { PgPool } from '../../shared/postgres';
import { changeWatch as feedWatch, type ChangeWatch, type WatchOptions } from '../../shared/postgres/watch';

export type { ChangeWatch, WatchOptions };

/** The channel every search write notifies, with its change's id, in its own transaction. */
export const CHANNEL = 'search_changes';

/** The listening connection's application_name (pg_stat_activity shows it). */
export const LISTENER_NAME = 'platform search listener';

/** Search's data version: the shared change watch (core/shared/postgres/watch.ts) on `search_changes`. */
export const changeWatch = (pool: PgPool, opts: WatchOptions = {}): ChangeWatch =>
  feedWatch(pool, { channel: CHANNEL, table: 'search_changes', listenerName: LISTENER_NAME }, opts);
