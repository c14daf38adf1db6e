/**
 * What the model gateway keeps outside a process, so that every process serving it (the workers of
 * `platform start`; replicas later) behaves as one service. Adapters: SQLite (models.db, the
 * embedded default: cache-sqlite.ts, limits-sqlite.ts) and Redis for the answers (cache-redis.ts).
 * Each adapter passes the same contract tests (test/core/models/store-contracts.ts).
 */

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
