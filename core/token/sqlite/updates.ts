import { statements, type Db } from '../../shared/sqlite';
import type { ClientPatch, RealmPatch, Updated, UserPatch } from '../ports';
import { PATCH_COLUMNS, patchSets, possibleVersion, type Row } from '../rows';
import * as row from './rows';

const bool = (b: boolean) => (b ? 1 : 0);
/** A realm renamed to a name another realm has, in any case (the NOCASE unique index). */
const isUniqueViolation = (err: unknown) => (err as { code?: unknown }).code === 'SQLITE_CONSTRAINT_UNIQUE';

/**
 * The admin's updates of realms, clients and users in token.db: the fields given and `version + 1`
 * in one UPDATE, with `AND version = ?` when the caller read a version (If-Match), so of two
 * processes updating from the same version exactly one writes. When nothing was written, the row
 * is read in the same transaction to tell a missing one from a stale version.
 */
export function sqliteUpdates(db: Db) {
  const { one } = statements(db);

  const compareAndSet = <R extends { version: number }>(table: string, where: string, map: (r: Row) => R) => {
    const read = one(`SELECT * FROM ${table} WHERE ${where}`, map);
    return db.transaction((keys: unknown[], sets: [string, unknown][], ifVersion?: number): Updated<R> => {
      const checked = ifVersion === undefined ? [] : [ifVersion];
      // Nothing to change (or a version no row has): no write and no new version, but the same answers as a change.
      if (sets.length === 0 || (ifVersion !== undefined && !possibleVersion(ifVersion))) {
        const current = read(...keys);
        if (!current) return { status: 'missing' };
        return ifVersion === undefined || current.version === ifVersion
          ? { status: 'ok', record: current }
          : { status: 'stale', version: current.version };
      }
      const assignments = sets.map(([column]) => `${column} = ?`).join(', ');
      const sql = `UPDATE ${table} SET ${assignments}, version = version + 1 WHERE ${where}${checked.length ? ' AND version = ?' : ''} RETURNING *`;
      let written: R | undefined;
      try {
        written = one(sql, map)(...sets.map(([, value]) => value), ...keys, ...checked);
      } catch (err) {
        if (isUniqueViolation(err)) return { status: 'taken' };
        throw err;
      }
      if (written) return { status: 'ok', record: written };
      const current = read(...keys);
      return current && ifVersion !== undefined ? { status: 'stale', version: current.version } : { status: 'missing' };
    });
  };

  const realm = compareAndSet('realms', 'id = ?', row.realm);
  const client = compareAndSet('clients', 'realm_id = ? AND client_id = ?', row.client);
  // The username column is NOCASE: found in any case, as users.get finds it.
  const user = compareAndSet('users', 'realm_id = ? AND username = ?', row.user);
  return {
    realm: (id: string, patch: RealmPatch, ifVersion?: number) => realm([id], patchSets(PATCH_COLUMNS.realm, patch, bool), ifVersion),
    client: (realmId: string, clientId: string, patch: ClientPatch, ifVersion?: number) =>
      client([realmId, clientId], patchSets(PATCH_COLUMNS.client, patch, bool), ifVersion),
    user: (realmId: string, username: string, patch: UserPatch, ifVersion?: number) =>
      user([realmId, username], patchSets(PATCH_COLUMNS.user, patch, bool), ifVersion),
  };
}
