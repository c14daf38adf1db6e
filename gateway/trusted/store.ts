import { Conflict } from '../../core/shared/errors';
import { openDatabase, type Db } from '../../core/shared/sqlite';
import type { ManifestFormat, TrustedDocument } from './manifest';

/** A document as stored: which app's list holds it. */
export type StoredDocument = TrustedDocument & { app: string };

/** One app's list as the CLI and the admin API show it. */
export interface TrustedApp {
  app: string;
  format: ManifestFormat;
  documents: number;
  /** Epoch milliseconds of its last load. */
  loadedAt: number;
}

/**
 * Where the trusted documents are kept: the data directory's `trusted-documents.db` (every worker
 * of the machine), or PostgreSQL (every replica). A generation number grows with each change, so a
 * process knows cheaply whether its copy in memory is current.
 */
export interface TrustedStore {
  /** Replaces `app`'s list with `documents`, atomically; Conflict when an id is another app's with another text. */
  replace(app: string, format: ManifestFormat, documents: readonly TrustedDocument[], now: number): Promise<TrustedApp>;
  /** Drops `app`'s list: whether it had one. */
  remove(app: string): Promise<boolean>;
  apps(): Promise<TrustedApp[]>;
  generation(): Promise<number>;
  /** Every document with the generation it was read at. */
  snapshot(): Promise<{ generation: number; documents: StoredDocument[] }>;
  close(): void | Promise<void>;
}

/** The same tables on SQLite and PostgreSQL (BIGINT is an INTEGER to SQLite). */
export const TRUSTED_MIGRATIONS = [
  `CREATE TABLE trusted_documents (
    app TEXT NOT NULL, id TEXT NOT NULL, body TEXT NOT NULL, sha256 TEXT NOT NULL, name TEXT, type TEXT NOT NULL,
    PRIMARY KEY (app, id));
  CREATE INDEX trusted_documents_id ON trusted_documents (id);
  CREATE TABLE trusted_apps (app TEXT PRIMARY KEY, format TEXT NOT NULL, documents INTEGER NOT NULL, loaded_at BIGINT NOT NULL);
  CREATE TABLE trusted_generation (one INTEGER PRIMARY KEY CHECK (one = 1), generation BIGINT NOT NULL);
  INSERT INTO trusted_generation VALUES (1, 0);`,
];

export const clash = (id: string, other: string) =>
  new Conflict(`Document '${id}' is already listed by app '${other}' with another text: an id names one document`, {
    code: 'DOCUMENT_ID_TAKEN',
  });

type Row = Record<string, unknown>;
export const appOf = (r: Row): TrustedApp => ({
  app: String(r.app),
  format: r.format as ManifestFormat,
  documents: Number(r.documents),
  loadedAt: Number(r.loaded_at),
});
export const documentOf = (r: Row): StoredDocument => ({
  app: String(r.app),
  id: String(r.id),
  body: String(r.body),
  sha256: String(r.sha256),
  type: r.type as TrustedDocument['type'],
  ...(typeof r.name === 'string' && r.name ? { name: r.name } : {}),
});

/** `trusted-documents.db` (or `:memory:`): every process opening the file sees the same lists. */
export function sqliteTrustedStore(file: string, opts: { durable?: boolean } = {}): TrustedStore {
  const db: Db = openDatabase(file, TRUSTED_MIGRATIONS, opts);
  const bump = () => db.prepare('UPDATE trusted_generation SET generation = generation + 1').run();
  const replace = db.transaction((app: string, format: ManifestFormat, documents: readonly TrustedDocument[], now: number) => {
    const other = db.prepare('SELECT app, body FROM trusted_documents WHERE id = ? AND app <> ?');
    for (const d of documents) {
      const taken = (other.all(d.id, app) as Row[]).find((r) => r.body !== d.body);
      if (taken) throw clash(d.id, String(taken.app));
    }
    db.prepare('DELETE FROM trusted_documents WHERE app = ?').run(app);
    const insert = db.prepare('INSERT INTO trusted_documents (app, id, body, sha256, name, type) VALUES (?, ?, ?, ?, ?, ?)');
    for (const d of documents) insert.run(app, d.id, d.body, d.sha256, d.name ?? null, d.type);
    db.prepare('INSERT OR REPLACE INTO trusted_apps (app, format, documents, loaded_at) VALUES (?, ?, ?, ?)').run(
      app,
      format,
      documents.length,
      now,
    );
    bump();
  });
  const remove = db.transaction((app: string) => {
    db.prepare('DELETE FROM trusted_documents WHERE app = ?').run(app);
    const gone = db.prepare('DELETE FROM trusted_apps WHERE app = ?').run(app).changes > 0;
    if (gone) bump();
    return gone;
  });
  const generation = () => Number((db.prepare('SELECT generation FROM trusted_generation').get() as Row).generation);
  const snapshot = db.transaction(() => ({
    generation: generation(),
    documents: (db.prepare('SELECT * FROM trusted_documents ORDER BY app, id').all() as Row[]).map(documentOf),
  }));
  return {
    async replace(app, format, documents, now) {
      replace.immediate(app, format, documents, now);
      return { app, format, documents: documents.length, loadedAt: now };
    },
    remove: async (app) => remove.immediate(app),
    apps: async () => (db.prepare('SELECT * FROM trusted_apps ORDER BY app').all() as Row[]).map(appOf),
    generation: async () => generation(),
    snapshot: async () => snapshot(),
    close: () => void db.close(),
  };
}
