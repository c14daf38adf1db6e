import { createHash } from 'node:crypto';
import type { KeysetRows } from '../../shared/admin/paging';
import type { PgPool } from '../../shared/postgres';
import { pageSql, type PageSql, type PageSqlSpec } from '../page-sql';
import type { ClientPageQuery, ClientRecord, UserPageQuery, UserRecord } from '../ports';
import { queries } from './query';
import * as row from './rows';

const placeholder = (n: number) => `$${n}`;
/**
 * A cursor's instant as a TIMESTAMPTZ: one before year 1 or past what a Date can be (only a forged
 * cursor) is taken as that bound, which has the same records before and after it.
 */
const EARLIEST = Date.parse('0001-01-01T00:00:00Z');
const LATEST = 8.64e15;
/**
 * A filter holding NUL matches nothing (no name or role holds one), and PostgreSQL refuses it in
 * text: the empty page, without asking.
 */
const matchesNone = (...filters: (string | undefined)[]) =>
  filters.some((f) => f?.includes('\0')) ? { records: [], total: 0 } : undefined;
const at = (ms: string | number) => new Date(Math.min(LATEST, Math.max(EARLIEST, Number(ms))));

/**
 * The admin lists of users and clients paged in PostgreSQL (keyset paging: a page costs the same
 * however deep, and never reads the realm whole). Text is compared in COLLATE "C" (byte order,
 * as JavaScript compares these ASCII names), never in the database's locale, and the indexes of
 * migration 5 are in the same collation.
 */
export function pgPages(pool: PgPool) {
  const q = queries(pool);
  // The driver prepares a named query once per connection: one name per SQL text (each filter
  // given or not, each sort, with a cursor or not).
  const named = (list: string, sql: string) => `${list}.${createHash('sha256').update(sql).digest('base64url').slice(0, 22)}`;
  const reader =
    <R>(list: string, map: (r: Record<string, unknown>) => R) =>
    async (page: PageSql): Promise<KeysetRows<R>> => {
      const [records, total] = await Promise.all([
        q.many(named(`${list}.page`, page.rows.sql), page.rows.sql, page.rows.params, map),
        q.one(named(`${list}.count`, page.count.sql), page.count.sql, page.count.params, (r) => Number(r.total)),
      ]);
      return { records, total: total ?? 0 };
    };
  const [readUsers, readClients] = [reader('users', row.user), reader('clients', row.client)];

  const users: PageSqlSpec<UserPageQuery['sort']> = {
    table: 'token_users',
    placeholder,
    sorts: { username: { expr: 'lower(username) COLLATE "C"' }, created_at: { expr: 'created_at', bind: at } },
    key: 'id COLLATE "C"',
  };
  const clients: PageSqlSpec<ClientPageQuery['sort']> = {
    table: 'token_clients',
    placeholder,
    sorts: { client_id: { expr: 'client_id COLLATE "C"' }, created_at: { expr: 'created_at', bind: at } },
    key: 'client_id COLLATE "C"',
  };

  return {
    users: async (realmId: string, query: UserPageQuery): Promise<KeysetRows<UserRecord>> =>
      matchesNone(query.q, query.role) ??
      readUsers(
        pageSql(users, query, (bind) => [
          `realm_id = ${bind(realmId)}`,
          // strpos, not LIKE: `%` and `_` in what is asked are plain characters.
          ...(query.q === undefined ? [] : [`strpos(lower(username), ${bind(query.q.toLowerCase())}) > 0`]),
          ...(query.enabled === undefined ? [] : [`enabled = ${bind(query.enabled)}`]),
          ...(query.role === undefined ? [] : [`roles @> ${bind(JSON.stringify([query.role]))}::jsonb`]),
        ]),
      ),
    clients: async (realmId: string, query: ClientPageQuery): Promise<KeysetRows<ClientRecord>> =>
      matchesNone(query.q) ??
      readClients(
        pageSql(clients, query, (bind) => [
          `realm_id = ${bind(realmId)}`,
          ...(query.q === undefined ? [] : [`strpos(lower(client_id), ${bind(query.q.toLowerCase())}) > 0`]),
          ...(query.enabled === undefined ? [] : [`enabled = ${bind(query.enabled)}`]),
          ...(query.public === undefined ? [] : [query.public ? 'secret_hash IS NULL' : 'secret_hash IS NOT NULL']),
        ]),
      ),
  };
}
