/**
 * models.db: the gateway's API keys. A key is shown once, at creation; only its SHA-256 is kept
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
];
