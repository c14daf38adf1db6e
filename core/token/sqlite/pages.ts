import type { KeysetRows } from '../../shared/admin/paging';
import { statements, type Db, type Row } from '../../shared/sqlite';
import { pageSql, type PageSql, type PageSqlSpec } from '../page-sql';
import type { ClientPageQuery, ClientRecord, UserPageQuery, UserRecord } from '../ports';
import * as row from './rows';

const bool = (b: boolean) => (b ? 1 : 0);
const placeholder = () => '?';

/**
 * The admin lists of users and clients paged in token.db (keyset paging: a page costs the same
 * however deep, and never reads the realm whole). Usernames and client ids are ASCII (admin.ts),
 * so SQLite's lower() and its byte order give the order and matches JavaScript gives.
 */
export function sqlitePages(db: Db) {
  const { one, many } = statements(db);
  // The page and its total from one snapshot: a write by another process falls before or after both.
  const reader = <R>(map: (r: Row) => R) =>
    db.transaction((page: PageSql): KeysetRows<R> => ({
      records: many(page.rows.sql, map)(...page.rows.params),
      total: one(page.count.sql, (r) => r.total as number)(...page.count.params) ?? 0,
    }));
  const [readUsers, readClients] = [reader(row.user), reader(row.client)];

  const users: PageSqlSpec<UserPageQuery['sort']> = {
    table: 'users',
    placeholder,
    // The username column is NOCASE: it sorts and compares as its lower case, and the unique
    // index (realm_id, username) gives that order.
    sorts: { username: { expr: 'username' }, created_at: { expr: 'created_at' } },
    key: 'id',
  };
  const clients: PageSqlSpec<ClientPageQuery['sort']> = {
    table: 'clients',
    placeholder,
    sorts: { client_id: { expr: 'client_id' }, created_at: { expr: 'created_at' } },
    key: 'client_id',
  };

  return {
    users: (realmId: string, q: UserPageQuery): KeysetRows<UserRecord> =>
      readUsers(
        pageSql(users, q, (bind) => [
          `realm_id = ${bind(realmId)}`,
          // instr, not LIKE: `%` and `_` in what is asked are plain characters.
          ...(q.q === undefined ? [] : [`instr(lower(username), ${bind(q.q.toLowerCase())}) > 0`]),
          ...(q.enabled === undefined ? [] : [`enabled = ${bind(bool(q.enabled))}`]),
          // Roles are written by JSON.stringify, which writes a string the same way alone or in a
          // list: a list holding the role holds its JSON text. A cheap test before parsing the
          // list, which alone decides.
          ...(q.role === undefined
            ? []
            : [
                `instr(roles, ${bind(JSON.stringify(q.role))}) > 0`,
                `EXISTS (SELECT 1 FROM json_each(users.roles) WHERE value = ${bind(q.role)})`,
              ]),
        ]),
      ),
    clients: (realmId: string, q: ClientPageQuery): KeysetRows<ClientRecord> =>
      readClients(
        pageSql(clients, q, (bind) => [
          `realm_id = ${bind(realmId)}`,
          ...(q.q === undefined ? [] : [`instr(lower(client_id), ${bind(q.q.toLowerCase())}) > 0`]),
          ...(q.enabled === undefined ? [] : [`enabled = ${bind(bool(q.enabled))}`]),
          ...(q.public === undefined ? [] : [q.public ? 'secret_hash IS NULL' : 'secret_hash IS NOT NULL']),
        ]),
      ),
  };
}
