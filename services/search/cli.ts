import { existsSync } from 'node:fs';
import { listFlag, tenantFlag, UsageError } from '../shared/cli';
import { progressBar } from '../shared/progress';
import type { CliCommand } from '../shared/module';
import type { SearchInstance } from './instance';

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
];
