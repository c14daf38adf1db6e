import { createHash } from 'node:crypto';
import type { PgPool } from '../../shared/postgres';
import type { ClientPatch, RealmPatch, Updated, UserPatch } from '../ports';
import { PATCH_COLUMNS, patchSets, possibleVersion, type Row } from '../rows';
import { queries } from './query';
import * as row from './rows';

/** A realm renamed to a name another realm has, in any case (the unique index on lower(name)). */
const isUniqueViolation = (err: unknown) => (err as { code?: unknown }).code === '23505';

/**
 * The admin's updates of realms, clients and users in PostgreSQL: the fields given and
 * `version + 1` in one UPDATE, with `AND version = $n` when the caller read a version (If-Match).
 * A replica updating the same row meanwhile holds its lock; this UPDATE waits for its commit and
 * then checks the version of the row as that one left it, so of two updates from one version
 * exactly one writes. When nothing was written the row is read to tell a missing one from a stale version.
 */
export function pgUpdates(pool: PgPool) {
  const q = queries(pool);

  const compareAndSet =
    <R extends { version: number }>(table: string, where: (first: number) => string, map: (r: Row) => R) =>
    async (keys: unknown[], sets: [string, unknown][], ifVersion?: number): Promise<Updated<R>> => {
      const read = () => q.one(`${table}.current`, `SELECT * FROM token_${table} WHERE ${where(1)}`, keys, map);
      // Nothing to change (or a version no row has): no write and no new version, but the same answers as a change.
      if (sets.length === 0 || (ifVersion !== undefined && !possibleVersion(ifVersion))) {
        const current = await read();
        if (!current) return { status: 'missing' };
        return ifVersion === undefined || current.version === ifVersion
          ? { status: 'ok', record: current }
          : { status: 'stale', version: current.version };
      }
      const assignments = sets.map(([column], i) => `${column} = $${i + 1}`).join(', ');
      const first = sets.length + 1;
      const checked = ifVersion === undefined ? '' : ` AND version = $${first + keys.length}`;
      const sql = `UPDATE token_${table} SET ${assignments}, version = version + 1 WHERE ${where(first)}${checked} RETURNING *`;
      let written: R | undefined;
      try {
        written = await q.one(
          // The driver prepares a named query once per connection: one name per SQL text, within
          // PostgreSQL's 63 characters (a list of columns may be longer).
          `${table}.update.${createHash('sha256').update(sql).digest('base64url').slice(0, 22)}`,
          sql,
          [...sets.map(([, value]) => value), ...keys, ...(ifVersion === undefined ? [] : [ifVersion])],
          map,
        );
      } catch (err) {
        if (isUniqueViolation(err)) return { status: 'taken' };
        throw err;
      }
      if (written) return { status: 'ok', record: written };
      const current = await read();
      return current && ifVersion !== undefined ? { status: 'stale', version: current.version } : { status: 'missing' };
    };

  const bool = (b: boolean) => b;
  const realm = compareAndSet('realms', (n) => `id = $${n}`, row.realm);
  const client = compareAndSet('clients', (n) => `realm_id = $${n} AND client_id = $${n + 1}`, row.client);
  // Usernames are found in any case (the unique index's expression), as users.get finds them.
  const user = compareAndSet('users', (n) => `realm_id = $${n} AND lower(username) = lower($${n + 1})`, row.user);
  return {
    realm: (id: string, patch: RealmPatch, ifVersion?: number) => realm([id], patchSets(PATCH_COLUMNS.realm, patch, bool), ifVersion),
    client: (realmId: string, clientId: string, patch: ClientPatch, ifVersion?: number) =>
      client([realmId, clientId], patchSets(PATCH_COLUMNS.client, patch, bool), ifVersion),
    user: (realmId: string, username: string, patch: UserPatch, ifVersion?: number) =>
      user([realmId, username], patchSets(PATCH_COLUMNS.user, patch, bool), ifVersion),
  };
}
