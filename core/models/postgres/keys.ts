import type { PgPool } from '../../shared/postgres';
import type { ApiKey } from '../keys/api-key';
import type { KeyStore } from '../ports';
import type { MoneyBudget } from '../spend/budget';

interface KeyRow {
  id: string;
  prefix: string;
  name: string;
  tenant: string;
  models: string[] | null;
  requests_per_minute: number | null;
  token_budget: string | null;
  created_at: Date;
  revoked_at: Date | null;
  expires_at: Date | null;
  budget_usd: number | null;
  budget_period: MoneyBudget['period'] | null;
  budget_warn_at: number | null;
}

const toKey = (r: KeyRow): ApiKey => ({
  id: r.id,
  prefix: r.prefix,
  name: r.name,
  tenant: r.tenant,
  models: r.models,
  requestsPerMinute: r.requests_per_minute,
  // BIGINT arrives as text; budgets are far below 2^53.
  tokenBudget: r.token_budget === null ? null : Number(r.token_budget),
  createdAt: r.created_at,
  revokedAt: r.revoked_at,
  expiresAt: r.expires_at,
  ...(r.budget_usd !== null && { budget: { usd: r.budget_usd, period: r.budget_period!, warnAt: r.budget_warn_at! } }),
});

const COLUMNS =
  'id, hash, prefix, name, tenant, models, requests_per_minute, token_budget, created_at, revoked_at, expires_at, budget_usd, budget_period, budget_warn_at';
const valuesOf = (k: ApiKey, hash: string) => [
  k.id,
  hash,
  k.prefix,
  k.name,
  k.tenant,
  k.models ? JSON.stringify(k.models) : null,
  k.requestsPerMinute,
  k.tokenBudget,
  k.createdAt,
  k.revokedAt,
  k.expiresAt,
  k.budget?.usd ?? null,
  k.budget?.period ?? null,
  k.budget?.warnAt ?? null,
];

/** The API keys in PostgreSQL (`models_api_keys`, unique by hash), seen alike by every replica. */
export function pgKeyStore(pool: PgPool): KeyStore {
  const one = async (name: string, text: string, values: unknown[]) => {
    const { rows } = await pool.query<KeyRow>({ name, text, values });
    return rows[0] ? toKey(rows[0]) : undefined;
  };
  return {
    create: async (k, hash) => {
      await pool.query({
        name: 'models.keys.create',
        text: `INSERT INTO models_api_keys (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
        values: valuesOf(k, hash),
      });
    },
    findLive: (hash) => one('models.keys.live', 'SELECT * FROM models_api_keys WHERE hash = $1 AND revoked_at IS NULL', [hash]),
    find: (hash) => one('models.keys.find', 'SELECT * FROM models_api_keys WHERE hash = $1', [hash]),
    get: (id) => one('models.keys.get', 'SELECT * FROM models_api_keys WHERE id = $1', [id]),
    list: async (tenant) => {
      const { rows } = await pool.query<KeyRow>({
        name: 'models.keys.list',
        text: 'SELECT * FROM models_api_keys WHERE ($1::text IS NULL OR tenant = $1) ORDER BY created_at, id COLLATE "C"',
        values: [tenant ?? null],
      });
      return rows.map(toKey);
    },
    // One statement: found and marked in the same step, whichever replica revokes it.
    revoke: (idOrPrefix, at) =>
      one(
        'models.keys.revoke',
        `UPDATE models_api_keys SET revoked_at = coalesce(revoked_at, $1)
      WHERE id = (SELECT id FROM models_api_keys WHERE id = $2 OR prefix = $2 ORDER BY created_at, id COLLATE "C" LIMIT 1) RETURNING *`,
        [new Date(at), idOrPrefix],
      ),
    // One statement: the new key is inserted only from the row the update marked, so of two rotations at once one finds it live.
    rotate: (id, next, hash, at) =>
      one(
        'models.keys.rotate',
        `WITH old AS (UPDATE models_api_keys SET revoked_at = $15 WHERE id = $16 AND revoked_at IS NULL RETURNING *),
        added AS (INSERT INTO models_api_keys (${COLUMNS})
          SELECT $1, $2, $3, $4, $5, $6::jsonb, $7::int, $8::bigint, $9::timestamptz, $10::timestamptz, $11::timestamptz,
            $12::double precision, $13::text, $14::double precision FROM old)
        SELECT * FROM old`,
        [...valuesOf(next, hash), new Date(at), id],
      ),
    setBudget: (id, b) =>
      one(
        'models.keys.budget',
        'UPDATE models_api_keys SET budget_usd = $1, budget_period = $2, budget_warn_at = $3 WHERE id = $4 RETURNING *',
        [b?.usd ?? null, b?.period ?? null, b?.warnAt ?? null, id],
      ),
  };
}
