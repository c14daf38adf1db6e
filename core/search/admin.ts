import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, relative, resolve } from 'node:path';
import type { Embedder } from '../shared/text/embedder';
import { extractText, kindOf, UnreadableFile } from './extract';
import type { AdminStore, SourceOutcome } from './ports';
import type { NewObject, Scope } from './types';

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

export function createSearchAdmin(d: { store: AdminStore; add: Add; embedder: Embedder }) {
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
        const known = await d.store.sameFile(opts.tenant, file, hash);
        if (known) {
          report.unchanged++;
          report.objects.push({ file, object_id: known });
          continue;
        }
        try {
          const { kind, text } = await extractText({ name, bytes });
          const folder = relative(dirname(root), dirname(file));
          const { id, outcome } = await d.add(scope, {
            content: text,
            fileName: name,
            fileExtension: kind,
            size: bytes.byteLength,
            sourceKey: file,
            contentHash: hash,
            tags: opts.tags,
            repos: opts.repos,
            folders: opts.folders ?? (folder && !folder.startsWith('..') ? [folder] : []),
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

    /** Every passage, or (the admin API) one tenant's passages of live objects. */
    async reindex(onProgress?: Progress, tenant?: string): Promise<{ passages: number; embedder: string }> {
      const total = await d.store.chunkCount(tenant);
      let done = 0;
      for (let page = await d.store.chunkPage(0, 256, tenant); page.length; page = await d.store.chunkPage(page.at(-1)!.id, 256, tenant)) {
        const vectors = await d.embedder.embed(page.map((c) => `${c.title}\n${c.text}`));
        await d.store.writeVectors(
          d.embedder,
          page.map((c, i) => ({ chunkId: c.id, vector: vectors[i] })),
        );
        done += page.length;
        onProgress?.(done, total, '');
      }
      // Every process rebuilds its vector indexes from the store (all tenants': the generation is one for all).
      await d.store.bumpVectorsGeneration();
      return { passages: done, embedder: d.embedder.id };
    },
  };
}

export type SearchAdmin = ReturnType<typeof createSearchAdmin>;
