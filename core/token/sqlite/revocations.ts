import type { FeedBatch, FeedCursor } from '../../shared/auth/revocation-feed';
import type { Revocation, RevocationKind } from '../../shared/auth/revocations';
import { statements, type Db, type Row } from '../../shared/sqlite';
import type { TokenStore } from '../ports';

const entry = (r: Row): Revocation => ({
  realm: r.realm_id as string,
  kind: r.kind as RevocationKind,
  subject: r.subject as string,
  upTo: r.up_to as number,
  until: r.until as number,
});

/**
 * The revoked-sessions feed in token.db, shared by the worker processes (and `platform` commands)
 * that open the file: `record` adds an entry inside the caller's transaction; `follow` is the way
 * search's workers follow search.db (core/search/sqlite): SQLite's `data_version`, which moves when
 * another connection commits, plus this connection's own writes, checked every `pollMs`; a reader
 * then catches up by id.
 */
export function sqliteRevocations(db: Db, opts: { pollMs?: number } = {}) {
  const { one, many, run } = statements(db);
  const insert = run('INSERT INTO revocations (realm_id, kind, subject, up_to, until) VALUES (?, ?, ?, ?, ?)');
  const feedId = one("SELECT value FROM meta WHERE key = 'revocations_feed'", (r) => r.value as string);
  const lastId = one('SELECT coalesce(max(id), 0) AS id FROM revocations', (r) => r.id as number);
  const after = many('SELECT id, realm_id, kind, subject, up_to, until FROM revocations WHERE id > ? ORDER BY id', (r) => ({
    id: r.id as number,
    e: entry(r),
  }));
  let writes = 0;
  const version = () => `${db.pragma('data_version', { simple: true }) as number}.${writes}`;

  const read = async (cursor?: FeedCursor): Promise<FeedBatch> => {
    const feed = feedId()!;
    const last = lastId()!;
    const full = !cursor || cursor.feed !== feed || cursor.after > last;
    const rows = after(full ? 0 : cursor.after);
    return { cursor: { feed, after: Math.max(last, rows.at(-1)?.id ?? 0, full ? 0 : cursor.after) }, entries: rows.map((r) => r.e), full };
  };

  const feed: TokenStore['revocations'] = {
    read,
    follow(changed) {
      let seen = version();
      const timer = setInterval(() => {
        if (!db.open) return;
        const now = version();
        if (now === seen) return;
        seen = now;
        changed();
      }, opts.pollMs ?? 100);
      timer.unref();
      return () => clearInterval(timer);
    },
    prune: async (before) => run('DELETE FROM revocations WHERE until < ?')(before),
  };
  return {
    feed,
    /** Adds `e` to the feed; call inside the transaction that ends the sessions. */
    record(e: Revocation) {
      insert(e.realm, e.kind, e.subject, e.upTo, e.until);
      writes++;
    },
  };
}
