import { operation } from './operation';

/** A model key's fields as the Model keys page shows them (and its spend this period, listed keys only). */
export const KEY_FIELDS =
  'id prefix name tenantId models requestsPerMinute tokenBudget budget { usd period warnAt } expiresAt createdAt revokedAt';
/** A listed key's spend this period (only listed keys have it: a new key has spent nothing). */
export const SPEND_FIELDS = 'spend { spentUsd reservedUsd periodEnd }';

export const KEYS = operation(`query ConsoleModelKeys($tenant: ID, $revoked: Boolean, $q: String, $after: String) {
  adminModelKeys(tenant: $tenant, revoked: $revoked, q: $q, first: 25, after: $after, sort: "-created_at") { items { ${KEY_FIELDS} ${SPEND_FIELDS} } nextCursor total }
}`);

export const REVOKE = operation(`mutation ConsoleRevokeModelKey($id: ID!) { adminRevokeModelKey(id: $id) { ${KEY_FIELDS} } }`);
export const ROTATE = operation(`mutation ConsoleRotateModelKey($id: ID!) { adminRotateModelKey(id: $id) { apiKey ${KEY_FIELDS} } }`);

export const MODELS = operation(`query ConsoleKeyModels { adminModels(active: true, first: 200) { items { id kind } nextCursor } }`);
export const CREATE = operation(
  `mutation ConsoleCreateModelKey($input: AdminModelKeyInput!) { adminCreateModelKey(input: $input) { apiKey ${KEY_FIELDS} } }`,
);

export const USAGE = operation(`query ConsoleKeyUsage($key: ID!) {
  adminUsage(key: $key, first: 200, sort: "-day") { items { day model requests inputTokens outputTokens errors } nextCursor }
}`);

export const TENANTS = operation(`query ConsoleKeyTenants { adminRealms(first: 200) { items { realm name } } }`);
