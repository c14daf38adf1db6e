import { operation } from './operation';

export const USAGE = operation(`query ConsoleUsage($tenant: ID, $key: ID, $model: String, $from: String, $to: String, $after: String) {
  adminUsage(tenant: $tenant, key: $key, model: $model, from: $from, to: $to, first: 200, after: $after) {
    items { day tenantId keyId model requests inputTokens outputTokens wordsSent wordsReceived cacheHits errors cost }
    nextCursor total
  }
}`);
export const KEYS = operation(`query ConsoleUsageKeys($after: String) {
  adminModelKeys(first: 200, sort: "name", after: $after) { items { id prefix name tenantId } nextCursor total }
}`);
export const MODELS = operation(`query ConsoleUsageModels { adminModels(first: 200) { items { id } } }`);
