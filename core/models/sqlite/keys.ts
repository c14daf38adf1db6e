import { statements, type Db, type Row } from '../../shared/sqlite';
import type { ApiKey } from '../keys/api-key';
import type { KeyStore } from '../ports';

const toKey = (r: Row): ApiKey => ({
  id: r.id as string,
  prefix: r.prefix as string,
  name: r.name as string,
  tenant: r.tenant as string,
  models: r.models === null ? null : (JSON.parse(r.models as string) as string[]),
  requestsPerMinute: (r.requests_per_minute as number | null) ?? null,
  tokenBudget: (r.token_budget as number | null) ?? null,
  createdAt: new Date(r.created_at as number),
  revokedAt: r.revoked_at === null ? null : new Date(r.revoked_at as number),
});

/** The API keys in models.db (`api_keys`, unique by hash). */
export function sqliteKeyStore(db: Db): KeyStore {
  const s = statements(db);
  const insert =
    s.run(`INSERT INTO api_keys (id, hash, prefix, name, tenant, models, requests_per_minute, token_budget, created_at, revoked_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const live = s.one('SELECT * FROM api_keys WHERE hash = ? AND revoked_at IS NULL', toKey);
  const list = s.many('SELECT * FROM api_keys WHERE (? IS NULL OR tenant = ?) ORDER BY created_at, id', toKey);
  // One statement: the key is found and marked in the same step, whichever process revokes it.
  const revoke = s.one(
    `UPDATE api_keys SET revoked_at = coalesce(revoked_at, ?)
    WHERE id = (SELECT id FROM api_keys WHERE id = ? OR prefix = ? ORDER BY created_at, id LIMIT 1) RETURNING *`,
    toKey,
  );

  return {
    create: async (k, hash) =>
      void insert(
        k.id,
        hash,
        k.prefix,
        k.name,
        k.tenant,
        k.models ? JSON.stringify(k.models) : null,
        k.requestsPerMinute,
        k.tokenBudget,
        k.createdAt.getTime(),
        k.revokedAt?.getTime() ?? null,
      ),
    findLive: async (hash) => live(hash),
    list: async (tenant) => list(tenant ?? null, tenant ?? null),
    revoke: async (idOrPrefix, at) => revoke(at, idOrPrefix, idOrPrefix),
  };
}
