import type { PgPool } from '../../shared/postgres';
import type { SessionRecord, TokenStore } from '../ports';
import { sessionEntry, sessionsEntry } from '../revocations';
import { queries, transaction } from './query';
import { recordRevocation } from './revocations';
import * as row from './rows';

/** The columns written, each from its array: one statement whatever the batch's size. */
const INSERT = `INSERT INTO token_sessions (id, realm_id, client_id, user_id, scope, refresh_jti, browser_session_id, created_at, expires_at, revoked_at)
  SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
                       $8::timestamptz[], $9::timestamptz[], $10::timestamptz[])`;

type Pending = { s: SessionRecord; resolve(): void; reject(err: unknown): void };
const at = (ms: number | null) => (ms === null ? null : new Date(ms));

/**
 * Sessions in PostgreSQL. Every token writes one, so writes are group-committed: those arriving
 * while a batch is on its way go together in the next single INSERT, sent as soon as the previous
 * one is answered (nothing waits for a timer: one token alone is written at once). `write`
 * resolves once its row is committed. The compare-and-set steps are single UPDATEs: PostgreSQL
 * re-checks the WHERE clause of a row another transaction changed meanwhile, so of parallel
 * rotations on any replicas exactly one matches.
 */
export function pgSessions(pool: PgPool): TokenStore['sessions'] & { flush(): Promise<void> } {
  const q = queries(pool);
  let pending: Pending[] = [];
  let writing: Promise<void> | undefined;

  const send = async (batch: Pending[]) => {
    const col = <T>(f: (s: SessionRecord) => T) => batch.map((p) => f(p.s));
    try {
      await pool.query({
        name: 'token.sessions.insert',
        text: INSERT,
        values: [
          col((s) => s.id),
          col((s) => s.realmId),
          col((s) => s.clientId),
          col((s) => s.userId),
          col((s) => s.scope),
          col((s) => s.refreshJti),
          col((s) => s.browserSessionId),
          col((s) => at(s.createdAt)),
          col((s) => at(s.expiresAt)),
          col((s) => at(s.revokedAt)),
        ],
      });
      batch.forEach((p) => p.resolve());
    } catch (err) {
      batch.forEach((p) => p.reject(err));
    }
  };
  /** Sends what is queued, then what queued meanwhile, until nothing is left. */
  const drain = async () => {
    while (pending.length) {
      const batch = pending;
      pending = [];
      await send(batch);
    }
    writing = undefined;
  };
  /** `drain` starts after `writing` is set, so its end always clears it. */
  const start = (after: Promise<void>) => (writing ??= after.then(drain));

  return {
    flush: async () => {
      while (writing || pending.length) await start(Promise.resolve());
    },
    write: (s) =>
      new Promise<void>((resolve, reject) => {
        pending.push({ s, resolve, reject });
        // The writes of this turn of the event loop go together.
        // Never rejects: a failed batch rejects each write's own promise.
        void start(new Promise<void>((r) => setImmediate(r)));
      }),
    get: (id) => q.one('sessions.get', 'SELECT * FROM token_sessions WHERE id = $1', [id], row.session),
    rotate: async (id, expected, next, expiresAt) =>
      (await q.count(
        'sessions.rotate',
        'UPDATE token_sessions SET refresh_jti = $3, expires_at = $4 WHERE id = $1 AND refresh_jti = $2 AND revoked_at IS NULL',
        [id, expected, next, at(expiresAt)],
      )) === 1,
    // Each ends sessions and adds the entry that ends their access tokens everywhere, in one transaction.
    revoke: async (id, when, until) => {
      await transaction(pool, async (t) => {
        const realmId = await t.one(
          'sessions.revoke',
          'UPDATE token_sessions SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL RETURNING realm_id',
          [id, at(when)],
          (r) => r.realm_id as string,
        );
        if (realmId) await recordRevocation(t, sessionEntry(realmId, id, until));
      });
    },
    revokeAll: (of, when, until) =>
      transaction(pool, async (t) => {
        const ids = (r: row.Row) => r.id as string;
        const ended = of.userId
          ? await t.many(
              'sessions.revoke-user',
              'UPDATE token_sessions SET revoked_at = $3 WHERE user_id = $1 AND realm_id = $2 AND revoked_at IS NULL RETURNING id',
              [of.userId, of.realmId, at(when)],
              ids,
            )
          : of.clientId
            ? await t.many(
                'sessions.revoke-client',
                'UPDATE token_sessions SET revoked_at = $3 WHERE realm_id = $1 AND client_id = $2 AND revoked_at IS NULL RETURNING id',
                [of.realmId, of.clientId, at(when)],
                ids,
              )
            : await t.many(
                'sessions.revoke-realm',
                'UPDATE token_sessions SET revoked_at = $2 WHERE realm_id = $1 AND revoked_at IS NULL RETURNING id',
                [of.realmId, at(when)],
                ids,
              );
        // A user's or a realm's end ends their browser sessions too (a client's leaves the person signed in).
        if (of.userId)
          await t.count(
            'browser-sessions.revoke-user',
            'UPDATE token_browser_sessions SET revoked_at = $3 WHERE realm_id = $1 AND user_id = $2 AND revoked_at IS NULL',
            [of.realmId, of.userId, at(when)],
          );
        else if (!of.clientId)
          await t.count(
            'browser-sessions.revoke-realm',
            'UPDATE token_browser_sessions SET revoked_at = $2 WHERE realm_id = $1 AND revoked_at IS NULL',
            [of.realmId, at(when)],
          );
        const entry = sessionsEntry(of, when, until, ended);
        if (entry) await recordRevocation(t, entry);
        return ended.length;
      }),
    prune: (before) => q.count('sessions.prune', 'DELETE FROM token_sessions WHERE expires_at < $1', [at(before)]),
  };
}
