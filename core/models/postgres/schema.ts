/**
 * The model gateway's tables in a shared PostgreSQL database (`models_` before each name; the
 * scope `models` in platform_migrations). As in models.db, a key is kept as the SHA-256 of its text.
 */
export const MODELS_PG_MIGRATIONS = [
  `
  CREATE TABLE models_api_keys (
    id TEXT PRIMARY KEY,
    hash TEXT NOT NULL UNIQUE,
    prefix TEXT NOT NULL,
    name TEXT NOT NULL,
    tenant TEXT NOT NULL,
    models JSONB,
    requests_per_minute INTEGER,
    token_budget BIGINT,
    created_at TIMESTAMPTZ NOT NULL,
    revoked_at TIMESTAMPTZ
  );
  CREATE INDEX models_api_keys_tenant ON models_api_keys (tenant);
  CREATE INDEX models_api_keys_prefix ON models_api_keys (prefix);
  CREATE TABLE models_usage (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at TIMESTAMPTZ NOT NULL,
    key_id TEXT NOT NULL,
    tenant TEXT NOT NULL,
    model TEXT NOT NULL,
    route TEXT NOT NULL,
    status INTEGER NOT NULL,
    latency_ms DOUBLE PRECISION NOT NULL,
    upstream_ms DOUBLE PRECISION,
    tokens_in BIGINT NOT NULL,
    tokens_out BIGINT NOT NULL,
    words_sent BIGINT NOT NULL,
    words_received BIGINT NOT NULL,
    cache TEXT NOT NULL,
    guard TEXT NOT NULL,
    options JSONB NOT NULL,
    cost DOUBLE PRECISION NOT NULL
  );
  CREATE INDEX models_usage_tenant ON models_usage (tenant, at);
  CREATE INDEX models_usage_key ON models_usage (key_id, at);
  `,
  // Stored Responses API responses (responses.ts), and their output items by id for item_reference.
  `
  CREATE TABLE models_responses (
    id TEXT PRIMARY KEY,
    tenant TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL,
    response JSONB NOT NULL,
    input JSONB NOT NULL
  );
  CREATE INDEX models_responses_expiry ON models_responses (expires_at);
  CREATE TABLE models_response_items (
    id TEXT PRIMARY KEY,
    tenant TEXT NOT NULL,
    response_id TEXT NOT NULL REFERENCES models_responses (id) ON DELETE CASCADE,
    item JSONB NOT NULL
  );
  CREATE INDEX models_response_items_response ON models_response_items (response_id);
  `,
  // A key's expiry (the admin API): refused from then on as a revoked key is; NULL never expires.
  `
  ALTER TABLE models_api_keys ADD COLUMN expires_at TIMESTAMPTZ;
  `,
  // The catalog's run-time changes (the admin API; catalog-store.ts): an entry replacing or adding
  // to the file's (NULL: the file's, only its state changed), active or deactivated, its version.
  `
  CREATE TABLE models_catalog (
    id TEXT PRIMARY KEY,
    entry JSONB,
    active BOOLEAN NOT NULL,
    version INTEGER NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL,
    updated_by TEXT NOT NULL
  );
  `,
  // Money (docs/spend.md): a key's budget, the tenants' budgets, and spend and reservations per
  // scope (`key:<id>`, `tenant:<name>`) and period, in whole nano-dollars (spend-counters.ts).
  `
  ALTER TABLE models_api_keys ADD COLUMN budget_usd DOUBLE PRECISION;
  ALTER TABLE models_api_keys ADD COLUMN budget_period TEXT;
  ALTER TABLE models_api_keys ADD COLUMN budget_warn_at DOUBLE PRECISION;
  CREATE TABLE models_tenant_budgets (
    tenant TEXT PRIMARY KEY,
    usd DOUBLE PRECISION NOT NULL,
    period TEXT NOT NULL,
    warn_at DOUBLE PRECISION NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL,
    updated_by TEXT NOT NULL
  );
  CREATE TABLE models_spend (
    scope TEXT NOT NULL,
    period BIGINT NOT NULL,
    spent BIGINT NOT NULL,
    reserved BIGINT NOT NULL,
    PRIMARY KEY (scope, period)
  );
  `,
];
