import type { FeedBatch, FeedCursor } from '../../shared/auth/revocation-feed';
import type { Revocation, RevocationKind } from '../../shared/auth/revocations';
import type { PgPool } from '../../shared/postgres';
import { changeWatch, type ChangeWatch } from '../../shared/postgres/watch';
import type { TokenStore } from '../ports';
import { queries } from './query';
import type { Row } from './rows';

/** The feed's channel and table; its listening connection shows in pg_stat_activity under this name. */
export const REVOCATIONS = { channel: 'token_revocations', table: 'token_revocations', listenerName: 'platform token listener' };

/** Any fixed number: the advisory lock that puts revocation entries' commits in id order. */
const FEED_LOCK = 0x7265766b; // "revk"

const entry = (r: Row): Revocation => ({
  realm: r.realm_id as string,
  kind: r.kind as RevocationKind,
  subject: r.subject as string,
  upTo: Number(r.up_to),
  until: Number(r.until),
});

type Q = ReturnType<typeof queries>;

/**
 * Adds `e` to the feed inside the caller's transaction `t`, under the lock that orders the feed's
 * commits, and notifies the replicas' listeners (delivered when the transaction commits).
 */
export async function recordRevocation(t: Q, e: Revocation): Promise<void> {
  await t.count('revocations.lock', 'SELECT pg_advisory_xact_lock($1)', [FEED_LOCK]);
  const id = await t.one(
    'revocations.insert',
    `INSERT INTO token_revocations (realm_id, kind, subject, up_to, until) VALUES ($1, $2, $3, $4, $5) RETURNING id`,
    [e.realm, e.kind, e.subject, e.upTo, e.until],
    (r) => String(r.id),
  );
  await t.count('revocations.notify', 'SELECT pg_notify($1, $2)', [REVOCATIONS.channel, id]);
}

/**
 * The revoked-sessions feed in PostgreSQL, for every replica: read by id; followed as search's
 * change feed is (core/shared/postgres/watch.ts: LISTEN on one connection, a poll of the highest id
 * as a fallback, the listener opened again when it drops). The watch (one connection) is opened by
 * the first `follow` and ended when the last follower stops.
 */
export function pgRevocations(
  pool: PgPool,
  opts: { onError?: (err: Error) => void } = {},
): TokenStore['revocations'] & { close(): Promise<void> } {
  const q = queries(pool);
  const followers = new Set<() => void>();
  let watch: ChangeWatch | undefined;
  // The feed's id never changes: read once.
  let feedId: string | undefined;

  const read = async (cursor?: FeedCursor): Promise<FeedBatch> => {
    const feed = (feedId ??= await q.one(
      'revocations.feed',
      "SELECT value FROM token_settings WHERE key = 'revocations_feed'",
      [],
      (r) => r.value as string,
    ))!;
    const last = (await q.one('revocations.last', 'SELECT coalesce(max(id), 0) AS id FROM token_revocations', [], (r) => Number(r.id)))!;
    const full = !cursor || cursor.feed !== feed || cursor.after > last;
    const rows = await q.many(
      'revocations.after',
      'SELECT id, realm_id, kind, subject, up_to, until FROM token_revocations WHERE id > $1 ORDER BY id',
      [full ? 0 : cursor.after],
      (r) => ({ id: Number(r.id), e: entry(r) }),
    );
    return { cursor: { feed, after: Math.max(last, rows.at(-1)?.id ?? 0, full ? 0 : cursor.after) }, entries: rows.map((r) => r.e), full };
  };

  return {
    read,
    follow(changed) {
      followers.add(changed);
      watch ??= changeWatch(pool, REVOCATIONS, { pollMs: 500, onError: opts.onError, onChange: () => followers.forEach((f) => f()) });
      return () => {
        followers.delete(changed);
        if (followers.size === 0 && watch) {
          void watch.close();
          watch = undefined;
        }
      };
    },
    prune: (before) => q.count('revocations.prune', 'DELETE FROM token_revocations WHERE until < $1', [before]),
    close: async () => {
      followers.clear();
      await watch?.close();
      watch = undefined;
    },
  };
}
