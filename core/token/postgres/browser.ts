import type { PgPool } from '../../shared/postgres';
import type { AuthCodeRecord, TokenStore } from '../ports';
import { sessionEntry } from '../revocations';
import { queries, transaction } from './query';
import { recordRevocation } from './revocations';
import * as row from './rows';

const at = (ms: number | null) => (ms === null ? null : new Date(ms));

/**
 * Browser (single sign-on) sessions in PostgreSQL. Their end ends the token sessions started under
 * them and adds those sessions' entries to the revoked-sessions feed, in one transaction.
 */
export function pgBrowserSessions(pool: PgPool): TokenStore['browserSessions'] {
  const q = queries(pool);
  return {
    insert: async (b) => {
      await q.count(
        'browser-sessions.insert',
        `INSERT INTO token_browser_sessions (id, realm_id, user_id, cookie_hash, auth_time, created_at, expires_at, revoked_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [b.id, b.realmId, b.userId, b.cookieHash, at(b.authTime), at(b.createdAt), at(b.expiresAt), at(b.revokedAt)],
      );
    },
    get: (id) => q.one('browser-sessions.get', 'SELECT * FROM token_browser_sessions WHERE id = $1', [id], row.browserSession),
    byCookie: (cookieHash) =>
      q.one('browser-sessions.by-cookie', 'SELECT * FROM token_browser_sessions WHERE cookie_hash = $1', [cookieHash], row.browserSession),
    listOpen: (realmId, now, userId) =>
      userId
        ? q.many(
            'browser-sessions.open-of-user',
            `SELECT * FROM token_browser_sessions WHERE realm_id = $1 AND user_id = $2 AND revoked_at IS NULL AND expires_at > $3
             ORDER BY created_at DESC`,
            [realmId, userId, at(now)],
            row.browserSession,
          )
        : q.many(
            'browser-sessions.open',
            'SELECT * FROM token_browser_sessions WHERE realm_id = $1 AND revoked_at IS NULL AND expires_at > $2 ORDER BY created_at DESC',
            [realmId, at(now)],
            row.browserSession,
          ),
    end: (id, when, until) =>
      transaction(pool, async (t) => {
        await t.count('browser-sessions.end', 'UPDATE token_browser_sessions SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL', [
          id,
          at(when),
        ]);
        const ended = await t.many(
          'sessions.revoke-browser-session',
          'UPDATE token_sessions SET revoked_at = $2 WHERE browser_session_id = $1 AND revoked_at IS NULL RETURNING id, realm_id',
          [id, at(when)],
          (r) => ({ id: r.id as string, realmId: r.realm_id as string }),
        );
        for (const e of ended) await recordRevocation(t, sessionEntry(e.realmId, e.id, until));
        return ended.length;
      }),
    prune: (before) => q.count('browser-sessions.prune', 'DELETE FROM token_browser_sessions WHERE expires_at < $1', [at(before)]),
  };
}

/**
 * Authorization codes in PostgreSQL. `consume` is one UPDATE: PostgreSQL locks the row and, when
 * another replica's consume changed it meanwhile, evaluates the SET on the row as that one left it,
 * so of parallel consumes on any replicas exactly one finds `used_at` empty. The row it answers is
 * the one after the UPDATE, which keeps `used_at` once set: `reused` false (set by every consume
 * after the first) tells that `used_at` was empty before.
 */
export function pgCodes(pool: PgPool): TokenStore['codes'] {
  const q = queries(pool);
  return {
    insert: async (c) => {
      await q.count(
        'codes.insert',
        `INSERT INTO token_auth_codes (code_hash, realm_id, client_id, user_id, browser_session_id, redirect_uri, scope, nonce,
                                       code_challenge, auth_time, created_at, expires_at, used_at, session_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
        [
          c.codeHash,
          c.realmId,
          c.clientId,
          c.userId,
          c.browserSessionId,
          c.redirectUri,
          c.scope,
          c.nonce,
          c.codeChallenge,
          at(c.authTime),
          at(c.createdAt),
          at(c.expiresAt),
          at(c.usedAt),
          c.sessionId,
        ],
      );
    },
    consume: (codeHash, when) =>
      q.one(
        'codes.consume',
        `UPDATE token_auth_codes SET used_at = coalesce(used_at, $2), reused = reused OR used_at IS NOT NULL
         WHERE code_hash = $1 RETURNING *`,
        [codeHash, at(when)],
        (r): AuthCodeRecord => ({ ...row.code(r), ...(r.reused ? {} : { usedAt: null }) }),
      ),
    started: async (codeHash, sessionId) =>
      (await q.one(
        'codes.started',
        'UPDATE token_auth_codes SET session_id = $2 WHERE code_hash = $1 RETURNING reused',
        [codeHash, sessionId],
        (r) => r.reused as boolean,
      )) === false,
    prune: (before) => q.count('codes.prune', 'DELETE FROM token_auth_codes WHERE expires_at < $1', [at(before)]),
  };
}
