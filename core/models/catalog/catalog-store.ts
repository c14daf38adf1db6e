import type { CatalogModel } from './catalog';

/**
 * The catalog's changes made at run time (the admin API), kept where every process and replica
 * reads them: models.db, or PostgreSQL's `models_catalog`. One row per model id; rows are never
 * deleted and a row's version only grows, so the sum of the versions grows with every write of any
 * replica and is a cheap change counter to poll (`generation`).
 */
export interface StoredModel {
  id: string;
  /** The administrator's entry, replacing the file's of the same id; null: the file's entry, only its state changed. */
  entry: CatalogModel | null;
  /** False: deactivated (calls refused as a deactivated model's), whichever entry it has. */
  active: boolean;
  version: number;
  /** Epoch milliseconds. */
  updatedAt: number;
  /** Who wrote it (the administrator's name or id). */
  updatedBy: string;
}

export interface CatalogWrite {
  id: string;
  /** The new entry; undefined keeps the row's (a new row then has none: the file's stays). */
  entry?: CatalogModel;
  active: boolean;
  at: number;
  by: string;
}

/**
 * When a write applies, decided by the store in the same statement (never read-then-write):
 * `any` (last writer wins), only over the row at `version`, or only when there is no row yet.
 */
export type WriteIf = 'any' | 'absent' | { version: number };

export interface CatalogStore {
  /** Every row. */
  list(): Promise<StoredModel[]>;
  /** The sum of every row's version: it moves on every write, whichever process made it. */
  generation(): Promise<number>;
  /**
   * Writes `w.id`'s row when `cond` holds: an existing row goes up one version, a new one starts
   * at `firstVersion`. The row as written, or undefined when `cond` did not hold.
   */
  write(w: CatalogWrite, cond: WriteIf, firstVersion: number): Promise<StoredModel | undefined>;
}

/** The sum `generation` gives, computed from rows already read (so a snapshot knows where it stands). */
export const generationOf = (rows: readonly StoredModel[]): number => rows.reduce((n, r) => n + r.version, 0);
