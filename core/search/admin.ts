import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, relative, resolve } from 'node:path';
import { statements, type Db } from '../shared/sqlite';
import type { Embedder } from '../shared/text/embedder';
import { extractText, kindOf, UnreadableFile } from './extract';
import type { Scope } from './filters';
import type { SourceOutcome } from './sqlite-store';
import type { NewObject } from './types';
import { vectorBlob } from './sqlite-rows';

/**
 * Administration of the repository from the `platform` command, also while the server runs:
 * `ingest` a file or a folder, `reindex` every passage with the configured embedder. Both are
 * safe to re-run and to interrupt: each file is one transaction, an unchanged file (same path and
 * bytes) is skipped, a changed one replaces its earlier version; reindex rewrites vectors in
 * batches and servers switch to them when it bumps the generation at the end.
 */
export interface Progress {
  (done: number, total: number, item: string): void;
}

export interface IngestOptions {
  tenant: string;
  repos?: string[];
  folders?: string[];
  tags?: string[];
  onProgress?: Progress;
}

export interface IngestReport {
  files: number;
  created: number;
  replaced: number;
  unchanged: number;
  skipped: { file: string; reason: string }[];
  objects: { file: string; object_id: string }[];
}

type Add = (scope: Scope, input: NewObject) => Promise<SourceOutcome>;

export const CLI_SUBJECT = 'platform-cli';

/** Files under `path` (itself when a file), sorted, hidden ones left out. */
function filesUnder(path: string): string[] {
  const st = statSync(path);
  if (st.isFile()) return [path];
  const out: string[] = [];
  for (const entry of readdirSync(path, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    if (entry.name.startsWith('.')) continue;
    const full = resolve(path, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(full));
    else if (entry.isFile()) out.push(full);
  }
  return out;
}

export function createSearchAdmin(d: { db: Db; add: Add; embedder: Embedder }) {
  const s = statements(d.db);
  const sameFile = s.one('SELECT id FROM objects WHERE tenant = ? AND source_key = ? AND content_hash = ? AND deleted_at IS NULL', (r) => r.id as string);
  const chunkPage = s.many(`SELECT c.id AS id, c.text AS text, o.title AS title FROM chunks c JOIN objects o ON o.seq = c.object_seq
    WHERE c.id > ? ORDER BY c.id LIMIT ?`, (r) => ({ id: r.id as number, text: r.text as string, title: r.title as string }));
  const chunkCount = s.one('SELECT count(*) AS n FROM chunks', (r) => r.n as number);
  const setVector = s.run('INSERT OR REPLACE INTO vectors (chunk_id, embedder, vector) VALUES (?, ?, ?)');
  const bump = s.run("UPDATE meta SET value = value + 1 WHERE key = 'vectors_generation'");

  return {
    async ingest(path: string, opts: IngestOptions): Promise<IngestReport> {
      const root = resolve(path);
      const files = filesUnder(root);
      const report: IngestReport = { files: files.length, created: 0, replaced: 0, unchanged: 0, skipped: [], objects: [] };
      const scope = { tenant: opts.tenant, subject: CLI_SUBJECT };
      for (const [i, file] of files.entries()) {
        opts.onProgress?.(i, files.length, file);
        const name = basename(file);
        if (!kindOf(name)) {
          report.skipped.push({ file, reason: 'not a txt, md, html, pdf or docx file' });
          continue;
        }
        const bytes = readFileSync(file);
        const hash = createHash('sha256').update(bytes).digest('hex');
        const known = sameFile(opts.tenant, file, hash);
        if (known) {
          report.unchanged++;
          report.objects.push({ file, object_id: known });
          continue;
        }
        try {
          const { kind, text } = await extractText({ name, bytes });
          const folder = relative(dirname(root), dirname(file));
          const { id, outcome } = await d.add(scope, {
            content: text, fileName: name, fileExtension: kind, size: bytes.byteLength, sourceKey: file, contentHash: hash,
            tags: opts.tags, repos: opts.repos, folders: opts.folders ?? (folder && !folder.startsWith('..') ? [folder] : []),
            sourceSystemMetadata: { source_url: `file://${file}`, connector_info: 'platform ingest' },
          });
          report[outcome]++;
          report.objects.push({ file, object_id: id });
        } catch (err) {
          if (!(err instanceof UnreadableFile)) throw err;
          report.skipped.push({ file, reason: err.message });
        }
      }
      opts.onProgress?.(files.length, files.length, '');
      return report;
    },

    async reindex(onProgress?: Progress): Promise<{ passages: number; embedder: string }> {
      const total = chunkCount() ?? 0;
      let done = 0;
      for (let page = chunkPage(0, 256); page.length; page = chunkPage(page.at(-1)!.id, 256)) {
        const vectors = await d.embedder.embed(page.map((c) => `${c.title}\n${c.text}`));
        d.db.transaction(() => page.forEach((c, i) => setVector(c.id, d.embedder.id, vectorBlob(vectors[i]!, d.embedder.sparse))))();
        done += page.length;
        onProgress?.(done, total, '');
      }
      bump();
      return { passages: done, embedder: d.embedder.id };
    },
  };
}

export type SearchAdmin = ReturnType<typeof createSearchAdmin>;
