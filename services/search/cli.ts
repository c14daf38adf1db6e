import { existsSync } from 'node:fs';
import { searchAdminClient } from '../../clients/search/admin';
import type { Admin } from '../../core/shared/admin/access';
import type { Ctx } from '../../core/shared/context';
import type { SearchAdminApi } from '../../core/search/admin-api';
import { cliCtx, everyItem, LIST_FLAGS } from '../shared/admin-cli';
import { listFlag, tenantFlag, UsageError } from '../shared/cli';
import { progressBar } from '../shared/progress';
import type { CliCommand } from '../shared/module';
import type { SearchInstance } from './instance';

/**
 * `platform documents [--tenant T] | reindex --tenant T`: what each tenant holds, and re-embedding one
 * tenant's passages, through the admin API (core/search/admin-api.ts): the data directory's core as
 * the local administrator, or a remote platform's (`--url`), printing the same views.
 */
async function documentsCommand(api: SearchAdminApi, ctx: Ctx<Admin>, words: string[], f: Record<string, string | undefined>) {
  const [verb] = words;
  if (verb === 'reindex') {
    if (!f.tenant) throw new UsageError('documents reindex needs --tenant T');
    return api.reindexTenant({ tenant: f.tenant }, ctx);
  }
  if (verb !== undefined) throw new UsageError(`unknown documents command '${verb}'`);
  if (f.tenant) return api.tenantDocuments({ tenant: f.tenant }, ctx);
  return everyItem((ask) => api.listDocuments({ ...ask, q: f.q }, ctx), f);
}

export const searchCommands: CliCommand<SearchInstance>[] = [
  {
    name: 'ingest',
    usage: [
      'platform ingest <file|dir> [--tenant T] [--repo R] [--folder F] [--tags a,b]',
      '                                                 index txt, md, html, pdf and docx files (re-runs skip unchanged files)',
    ],
    flags: { values: ['tenant', 'repo', 'folder', 'tags'] },
    run: async (core, words, f) => {
      const path = words[0];
      if (!path) throw new UsageError('ingest needs a file or a folder');
      if (!existsSync(path)) throw new UsageError(`no such file or folder: ${path}`);
      const bar = progressBar('ingest');
      try {
        return await core.admin.ingest(path, {
          tenant: tenantFlag(core.dataDir, f.tenant),
          repos: listFlag(f.repo),
          folders: listFlag(f.folder),
          tags: listFlag(f.tags),
          onProgress: bar.update,
        });
      } finally {
        bar.stop();
      }
    },
  },
  {
    name: 'reindex',
    usage: ['platform reindex                                 re-embed every passage with the configured embedder'],
    run: async (core) => {
      const bar = progressBar('reindex');
      try {
        return await core.admin.reindex(bar.update);
      } finally {
        bar.stop();
      }
    },
  },
  {
    name: 'documents',
    usage: [
      'platform documents [--q TEXT] | documents --tenant T   documents, passages and bytes per tenant',
      "platform documents reindex --tenant T                    re-embed one tenant's passages",
    ],
    flags: { values: ['tenant', 'q', ...LIST_FLAGS] },
    run: (core, words, f) => documentsCommand(core.adminApi, cliCtx(), words, f),
    remote: (conn, words, f) => documentsCommand(searchAdminClient(conn), cliCtx(), words, f),
  },
];
