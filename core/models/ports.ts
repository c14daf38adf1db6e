import type { ApiKey } from './keys/api-key';
import type { DailyUsagePage, DailyUsageQuery } from './usage/daily';
import type { UsageRecord, UsageReport } from './usage/usage';
import type { MoneyBudget, TenantBudget } from './spend/budget';

/**
 * What the model gateway keeps outside a process, so that every process serving it (the workers of
 * `platform start`; replicas later) behaves as one service. Adapters: SQLite (models.db, the
 * embedded default: sqlite/) for every port, Redis for the answers (redis/). Each adapter passes the
 * same contract tests (test/core/models/store-contracts.ts). Times are epoch milliseconds.
 */

/** The API keys. The store never sees a key's text: the domain (keys.ts) hands it the text's hash. */
export interface KeyStore {
  /** Keeps a new key under the hash of its text. Rejects when that hash is already kept. */
  create(key: ApiKey, hash: string): Promise<void>;
  /** The key kept under `hash`, unless it was revoked; undefined when there is none. */
  findLive(hash: string): Promise<ApiKey | undefined>;
  /** The key kept under `hash`, revoked or not (why a text was refused); undefined when there is none. */
  find(hash: string): Promise<ApiKey | undefined>;
  /** The key with this id, revoked or not. */
  get(id: string): Promise<ApiKey | undefined>;
  /** The keys of `tenant` (of every tenant when undefined), revoked ones too, oldest first. */
  list(tenant?: string): Promise<ApiKey[]>;
  /**
   * Revokes at `at` the key whose id or listing prefix this is (one already revoked keeps its time)
   * and gives it as it now is; undefined when there is none.
   */
  revoke(idOrPrefix: string, at: number): Promise<ApiKey | undefined>;
  /**
   * In one step for every process: revokes at `at` the live key `id` and keeps `next` under `hash`.
   * Gives the old key as it now is; undefined, keeping nothing, when `id` is not a live key (so of
   * two rotations at once, one makes a key and the other nothing).
   */
  rotate(id: string, next: ApiKey, hash: string, at: number): Promise<ApiKey | undefined>;
  /**
   * Sets (null: removes) the money budget of the key `id` in one statement, so the next call of any
   * process reserves under the new one; gives the key as it now is, undefined when there is none.
   */
  setBudget(id: string, budget: MoneyBudget | null): Promise<ApiKey | undefined>;
}

/** The usage records: one per call, summed up per tenant. */
export interface UsageStore {
  /** Keeps a call's record and its cost. It may be queued for a moment (group commit): resolves once it is kept. */
  record(r: UsageRecord, cost: number): Promise<void>;
  /** Keeps at once what is queued (before the store closes). */
  flush(): Promise<void>;
  /** The totals of `tenant`'s calls at or after `from` and before `to`, this handle's queued ones included. */
  totals(tenant: string, from: number, to: number): Promise<UsageReport>;
  /** The calls summed per UTC day, tenant, key and model (usage/daily.ts): one page in the query's order, and how many there are. */
  daily(q: DailyUsageQuery): Promise<DailyUsagePage>;
}

/** Cached answers: text under a key, for a while. The store bounds its own size. */
export interface AnswerStore {
  /** The value under `key`; undefined when there is none or it expired. Rejects when the store cannot be read. */
  get(key: string): Promise<string | undefined>;
  /** Keeps `value` for `ttlMs` (or less, when the store needs the room). Rejects when the store cannot be written. */
  set(key: string, value: string, ttlMs: number): Promise<void>;
}

export type Admission = { admitted: true } | { admitted: false; retryAt: number };

/** A key's counts: requests in a sliding window, tokens per period. Each method is one atomic step for every process. */
export interface LimitCounters {
  /**
   * Counts a request of `id` at `now` when fewer than `limit` were counted in the `windowMs` before
   * it; else counts nothing and says when the window will have room (epoch ms).
   */
  takeRequest(id: string, limit: number, windowMs: number, now: number): Promise<Admission>;
  /** Tokens counted for `id` in the period that starts at `period` (epoch ms). */
  tokensSpent(id: string, period: number): Promise<number>;
  /** Adds `tokens` to that count. */
  spendTokens(id: string, period: number, tokens: number): Promise<void>;
  /** Forgets the requests counted at or before `before`; returns how many. */
  pruneRequests(before: number): Promise<number>;
}

/**
 * Money spent and reserved per scope (`key:<id>`, `tenant:<name>`) and period (its start, epoch
 * ms), in whole nano-dollars (integers: sums are exact in any order). Each method is one atomic
 * step for every process and replica: two reservations never both take the last of a budget.
 */
export interface SpendCounters {
  /**
   * Reserves `amount` when spent + reserved + amount <= `limit`; else changes nothing. True when
   * reserved.
   */
  reserve(scope: string, period: number, amount: number, limit: number): Promise<boolean>;
  /**
   * Replaces a reservation of `reserved` by the real `cost` (0 when the call failed: a release).
   * Gives the spend before and after, so that exactly one settle sees a threshold crossed.
   */
  settle(scope: string, period: number, reserved: number, cost: number): Promise<{ before: number; after: number }>;
  /** What is spent and reserved now (0 and 0 when nothing was). */
  read(scope: string, period: number): Promise<{ spent: number; reserved: number }>;
}

/** The tenants' money budgets (the admin API's `/tenant-budgets`), read by every replica. */
export interface TenantBudgetStore {
  get(tenant: string): Promise<TenantBudget | undefined>;
  /** The budgets of these tenants (of every tenant when undefined), by tenant name. */
  list(tenants?: readonly string[]): Promise<TenantBudget[]>;
  put(b: TenantBudget): Promise<void>;
  /** False when there was none. */
  delete(tenant: string): Promise<boolean>;
}

export type { MoneyBudget };

/** An item of a Responses API conversation or answer, as JSON (`message`, `function_call`, ...). */
export type ResponseItem = Record<string, unknown>;

/** A response kept for later requests (Responses API, `store` not false): under its tenant, until it expires. */
export interface StoredResponse {
  /** `resp_...` */
  id: string;
  tenant: string;
  createdAt: number;
  expiresAt: number;
  /** The response object as it was answered; its output items have ids (`msg_...`, `fc_...`). */
  response: Record<string, unknown> & { output: (ResponseItem & { id: string })[] };
  /** The conversation it answered: the previous responses' items, then its own input (references resolved). */
  input: ResponseItem[];
}

/**
 * The stored responses, shared by every process and replica. A tenant sees only its own; an expired
 * response is never answered (and pruned later). Ids are the gateway's own, unique.
 */
export interface ResponseStore {
  /** Keeps a response and its output items (each findable by id for `item_reference`). */
  put(r: StoredResponse): Promise<void>;
  /** `tenant`'s response `id`, unless it had expired at `now`. */
  get(tenant: string, id: string, now: number): Promise<StoredResponse | undefined>;
  /** The output items of `tenant`'s responses live at `now` with these ids (those found, by id). */
  items(tenant: string, ids: readonly string[], now: number): Promise<Map<string, ResponseItem>>;
  /** Deletes `tenant`'s response `id` (with its items); false when there was no live one. */
  delete(tenant: string, id: string, now: number): Promise<boolean>;
  /** Deletes the responses expired at `now`; returns how many. */
  prune(now: number): Promise<number>;
}

/** A prompt the semantic cache saw answered: its embedding, where its answer is (an AnswerStore key), when. */
export interface SemanticEntry {
  vector: Float32Array;
  /** The answer's exact cache key (cache.ts): the answer itself stays in the AnswerStore. */
  key: string;
  at: number;
}

/**
 * The semantic cache's prompts (answers/semantic-cache.ts): per tenant and request shape (everything
 * but the prompt's text), a bounded list of entries, newest first, each kept for the cache's TTL.
 * Tenants never share a list. Adapters: in memory (per process) and Redis (shared by replicas).
 */
export interface SemanticStore {
  /** The entries of `tenant`'s `shape` added within `ttlMs` of `now`, newest first. Rejects when the store cannot be read. */
  entries(tenant: string, shape: string, now: number, ttlMs: number): Promise<SemanticEntry[]>;
  /** Adds an entry (the oldest of its list go past the store's bound). Rejects when the store cannot be written. */
  add(tenant: string, shape: string, entry: SemanticEntry, ttlMs: number): Promise<void>;
}
