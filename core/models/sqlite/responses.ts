import { fromJson, statements, toJson, type Db, type Row } from '../../shared/sqlite';
import type { ResponseItem, ResponseStore, StoredResponse } from '../ports';

const toStored = (r: Row): StoredResponse => ({
  id: r.id as string,
  tenant: r.tenant as string,
  createdAt: r.created_at as number,
  expiresAt: r.expires_at as number,
  response: fromJson(r.response as string),
  input: fromJson(r.input as string),
});

/**
 * The stored Responses API responses in models.db (`responses`, and their output items in
 * `response_items`, deleted with them), seen alike by every worker. Every read names the tenant and
 * leaves out what had expired; `prune` deletes it.
 */
export function sqliteResponseStore(db: Db): ResponseStore {
  const s = statements(db);
  const insert = s.run('INSERT INTO responses (id, tenant, created_at, expires_at, response, input) VALUES (?, ?, ?, ?, ?, ?)');
  const insertItem = s.run('INSERT INTO response_items (id, tenant, response_id, item) VALUES (?, ?, ?, ?)');
  const get = s.one('SELECT * FROM responses WHERE tenant = ? AND id = ? AND expires_at > ?', toStored);
  const items = s.many(
    `SELECT i.id, i.item FROM response_items i JOIN responses r ON r.id = i.response_id
    WHERE i.tenant = ? AND r.expires_at > ? AND i.id IN (SELECT value FROM json_each(?))`,
    (r) => [r.id as string, fromJson<ResponseItem>(r.item as string)] as const,
  );
  const remove = s.run('DELETE FROM responses WHERE tenant = ? AND id = ? AND expires_at > ?');
  const prune = s.run('DELETE FROM responses WHERE expires_at <= ?');
  const put = db.transaction((r: StoredResponse) => {
    insert(r.id, r.tenant, r.createdAt, r.expiresAt, toJson(r.response), toJson(r.input));
    for (const item of r.response.output) insertItem(item.id, r.tenant, r.id, toJson(item));
  });
  return {
    put: async (r) => void put.immediate(r),
    get: async (tenant, id, now) => get(tenant, id, now),
    items: async (tenant, ids, now) => new Map(ids.length ? items(tenant, now, toJson(ids)) : []),
    delete: async (tenant, id, now) => remove(tenant, id, now) > 0,
    prune: async (now) => prune(now),
  };
}
