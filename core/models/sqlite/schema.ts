import { cacheTableSql } from '../../shared/sqlite-cache';

/**
 * models.db: the gateway's API keys, usage, and what every worker must see alike: cached answers
 * and the keys' limit counts. A key is shown once, at creation; only its SHA-256 is kept
 * (keys are 256 random bits, so a fast hash is as safe as a slow one and costs nothing per call).
 */
export const MODELS_MIGRATIONS = [
  `
  CREATE TABLE api_keys (
    id TEXT PRIMARY KEY,
    hash TEXT NOT NULL UNIQUE,
    prefix TEXT NOT NULL,
    name TEXT NOT NULL,
    tenant TEXT NOT NULL,
    models TEXT,
    requests_per_minute INTEGER,
    token_budget INTEGER,
    created_at INTEGER NOT NULL,
    revoked_at INTEGER
  );
  CREATE INDEX api_keys_tenant ON api_keys (tenant);
  `,
  `
  CREATE TABLE usage (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at INTEGER NOT NULL,
    key_id TEXT NOT NULL,
    tenant TEXT NOT NULL,
    model TEXT NOT NULL,
    route TEXT NOT NULL,
    status INTEGER NOT NULL,
    latency_ms REAL NOT NULL,
    upstream_ms REAL,
    tokens_in INTEGER NOT NULL,
    tokens_out INTEGER NOT NULL,
    words_sent INTEGER NOT NULL,
    words_received INTEGER NOT NULL,
    cache TEXT NOT NULL,
    guard TEXT NOT NULL,
    options TEXT NOT NULL,
    cost REAL NOT NULL
  );
  CREATE INDEX usage_tenant ON usage (tenant, at);
  `,
  `
  CREATE INDEX usage_key ON usage (key_id, at);
  `,
  // The answer cache, shared by every worker (answer-store.ts).
  cacheTableSql('answer_cache'),
  // Limit counts (limit-counters.ts): requests in the last minute per key (each request, and their
  // number kept by triggers), tokens per key and month (started from the usage rows already there).
  `
  CREATE TABLE rate_requests (key_id TEXT NOT NULL, at INTEGER NOT NULL);
  CREATE INDEX rate_requests_key ON rate_requests (key_id, at);
  CREATE INDEX rate_requests_at ON rate_requests (at);
  CREATE TABLE rate_counts (key_id TEXT PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID;
  CREATE TRIGGER rate_requests_added AFTER INSERT ON rate_requests BEGIN
    INSERT INTO rate_counts (key_id, n) VALUES (new.key_id, 1) ON CONFLICT (key_id) DO UPDATE SET n = n + 1;
  END;
  CREATE TRIGGER rate_requests_removed AFTER DELETE ON rate_requests BEGIN
    UPDATE rate_counts SET n = n - 1 WHERE key_id = old.key_id;
  END;
  CREATE TABLE token_spend (key_id TEXT NOT NULL, period INTEGER NOT NULL, tokens INTEGER NOT NULL, PRIMARY KEY (key_id, period)) WITHOUT ROWID;
  INSERT INTO token_spend (key_id, period, tokens)
    SELECT key_id, CAST(strftime('%s', at / 1000, 'unixepoch', 'start of month') AS INTEGER) * 1000, sum(tokens_in + tokens_out)
    FROM usage GROUP BY 1, 2 HAVING sum(tokens_in + tokens_out) > 0;
  `,
  // Stored Responses API responses (responses.ts): the conversation and the answer as JSON, and the
  // answer's items by id (for item_reference), under their tenant, until they expire.
  `
  CREATE TABLE responses (
    id TEXT PRIMARY KEY,
    tenant TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    response TEXT NOT NULL,
    input TEXT NOT NULL
  );
  CREATE INDEX responses_expiry ON responses (expires_at);
  CREATE TABLE response_items (
    id TEXT PRIMARY KEY,
    tenant TEXT NOT NULL,
    response_id TEXT NOT NULL REFERENCES responses (id) ON DELETE CASCADE,
    item TEXT NOT NULL
  );
  CREATE INDEX response_items_response ON response_items (response_id);
  `,
  // A key's expiry (the admin API): refused from then on as a revoked key is; NULL never expires.
  `
  ALTER TABLE api_keys ADD COLUMN expires_at INTEGER;
  `,
  // The catalog's run-time changes (the admin API; catalog-store.ts): an entry replacing or adding
  // to the file's (NULL: the file's, only its state changed), active or deactivated, its version.
  `
  CREATE TABLE model_catalog (
    id TEXT PRIMARY KEY,
    entry TEXT,
    active INTEGER NOT NULL,
    version INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    updated_by TEXT NOT NULL
  ) WITHOUT ROWID;
  `,
  // Money (docs/spend.md): a key's budget, the tenants' budgets, and spend and reservations per
  // scope (`key:<id>`, `tenant:<name>`) and period, in whole nano-dollars (spend-counters.ts).
  `
  ALTER TABLE api_keys ADD COLUMN budget_usd REAL;
  ALTER TABLE api_keys ADD COLUMN budget_period TEXT;
  ALTER TABLE api_keys ADD COLUMN budget_warn_at REAL;
  CREATE TABLE tenant_budgets (
    tenant TEXT PRIMARY KEY,
    usd REAL NOT NULL,
    period TEXT NOT NULL,
    warn_at REAL NOT NULL,
    updated_at INTEGER NOT NULL,
    updated_by TEXT NOT NULL
  ) WITHOUT ROWID;
  CREATE TABLE spend_counters (
    scope TEXT NOT NULL,
    period INTEGER NOT NULL,
    spent INTEGER NOT NULL,
    reserved INTEGER NOT NULL,
    PRIMARY KEY (scope, period)
  ) WITHOUT ROWID;
  `,
];
