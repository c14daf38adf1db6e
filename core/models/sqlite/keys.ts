import { statements, type Db, type Row } from '../../shared/sqlite';
import type { ApiKey } from '../keys/api-key';
import type { KeyStore } from '../ports';
import type { MoneyBudget } from '../spend/budget';

const time = (v: unknown) => (v === null || v === undefined ? null : new Date(v as number));

const toKey = (r: Row): ApiKey => ({
  id: r.id as string,
  prefix: r.prefix as string,
  name: r.name as string,
  tenant: r.tenant as string,
  models: r.models === null ? null : (JSON.parse(r.models as string) as string[]),
  requestsPerMinute: (r.requests_per_minute as number | null) ?? null,
  tokenBudget: (r.token_budget as number | null) ?? null,
  ...(r.budget_usd !== null &&
    r.budget_usd !== undefined && {
      budget: { usd: r.budget_usd as number, period: r.budget_period as MoneyBudget['period'], warnAt: r.budget_warn_at as number },
    }),
  createdAt: new Date(r.created_at as number),
  revokedAt: time(r.revoked_at),
  expiresAt: time(r.expires_at),
});

/** The API keys in models.db (`api_keys`, unique by hash). */
export function sqliteKeyStore(db: Db): KeyStore {
  const s = statements(db);
  const insert =
    s.run(`INSERT INTO api_keys (id, hash, prefix, name, tenant, models, requests_per_minute, token_budget, created_at, revoked_at, expires_at,
    budget_usd, budget_period, budget_warn_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const live = s.one('SELECT * FROM api_keys WHERE hash = ? AND revoked_at IS NULL', toKey);
  const byHash = s.one('SELECT * FROM api_keys WHERE hash = ?', toKey);
  const byId = s.one('SELECT * FROM api_keys WHERE id = ?', toKey);
  const list = s.many('SELECT * FROM api_keys WHERE (? IS NULL OR tenant = ?) ORDER BY created_at, id', toKey);
  // One statement: the key is found and marked in the same step, whichever process revokes it.
  const revoke = s.one(
    `UPDATE api_keys SET revoked_at = coalesce(revoked_at, ?)
    WHERE id = (SELECT id FROM api_keys WHERE id = ? OR prefix = ? ORDER BY created_at, id LIMIT 1) RETURNING *`,
    toKey,
  );
  const setBudget = s.one('UPDATE api_keys SET budget_usd = ?, budget_period = ?, budget_warn_at = ? WHERE id = ? RETURNING *', toKey);
  const revokeLive = s.one('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL RETURNING *', toKey);
  const add = (k: ApiKey, hash: string) =>
    insert(
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
      k.expiresAt?.getTime() ?? null,
      k.budget?.usd ?? null,
      k.budget?.period ?? null,
      k.budget?.warnAt ?? null,
    );
  // The old key is marked only while live, and the new one kept in the same transaction (IMMEDIATE: no other writer between).
  const rotate = db.transaction((id: string, next: ApiKey, hash: string, at: number) => {
    const old = revokeLive(at, id);
    if (old) add(next, hash);
    return old;
  });

  return {
    create: async (k, hash) => void add(k, hash),
    findLive: async (hash) => live(hash),
    find: async (hash) => byHash(hash),
    get: async (id) => byId(id),
    list: async (tenant) => list(tenant ?? null, tenant ?? null),
    revoke: async (idOrPrefix, at) => revoke(at, idOrPrefix, idOrPrefix),
    rotate: async (id, next, hash, at) => rotate.immediate(id, next, hash, at),
    setBudget: async (id, b) => setBudget(b?.usd ?? null, b?.period ?? null, b?.warnAt ?? null, id),
  };
}
