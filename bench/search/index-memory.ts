/**
 * `npm run bench:search-memory`: how much memory a search replica's in-memory indexes (BM25
 * postings and vectors of the built-in embedder) take per 1,000 passages. Ingests SciFact's 5,183
 * abstracts `BENCH_COPIES` times (2 by default; each copy another tenant) into a search.db in a
 * temporary folder, then opens a second search core on that file in this process, as a replica
 * starting up does, and measures process.memoryUsage() (after a full GC) before and after its
 * warm-up. Run with `node --expose-gc`; not a timed test.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Caller } from '../../core/shared/auth/caller';
import type { Ctx } from '../../core/shared/context';
import { openSearchCore } from '../../core/search';
import { sqliteSearchStores } from '../../core/search/sqlite';
import { scifactDir } from '../shared/datasets';
import { loadSciFact } from '../shared/scifact';

const as = (tenantId: string): Ctx<Caller> => ({
  caller: {
    realm: 'r',
    subject: 'bench',
    tenantId,
    roles: ['search:read', 'search:write'],
    scopes: [],
    clientId: 'c',
    username: 'bench',
    sessionId: 's',
    tokenId: 't',
    expiresAt: 0,
    audience: ['search'],
    bearer: '',
  },
});

const MiB = 2 ** 20;

function measured() {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with node --expose-gc');
  gc();
  gc();
  const m = process.memoryUsage();
  return { rss: m.rss, heap: m.heapUsed, buffers: m.arrayBuffers, external: m.external };
}

async function main(): Promise<void> {
  const copies = Number(process.env.BENCH_COPIES || 2);
  const { docs } = loadSciFact(scifactDir());
  const dir = mkdtempSync(join(tmpdir(), 'search-memory-'));
  const file = join(dir, 'search.db');
  try {
    const writer = openSearchCore({ stores: sqliteSearchStores(file) });
    for (let c = 0; c < copies; c++) {
      for (let i = 0; i < docs.length; i += 8) {
        await Promise.all(
          docs.slice(i, i + 8).map((d) => writer.service.createObject({ title: d.title, content: d.text }, as(`tenant-${c}`))),
        );
      }
    }
    const passages = await writer.store.admin.chunkCount();
    await writer.close();

    const replica = openSearchCore({ stores: sqliteSearchStores(file) });
    const before = measured();
    const started = Date.now();
    await replica.warmUp();
    const ms = Date.now() - started;
    const after = measured();
    const per1000 = (k: keyof typeof before) => (((after[k] - before[k]) / passages) * 1000) / MiB;
    process.stdout.write(
      `${docs.length * copies} objects, ${passages} passages in ${copies} tenants; warm-up ${(ms / 1000).toFixed(1)} s\n`,
    );
    process.stdout.write(
      `per 1,000 passages: V8 heap +${per1000('heap').toFixed(2)} MiB, array buffers +${per1000('buffers').toFixed(2)} MiB, ` +
        `RSS +${per1000('rss').toFixed(2)} MiB\n`,
    );
    process.stdout.write(
      `in all: heap +${((after.heap - before.heap) / MiB).toFixed(1)} MiB, array buffers +${((after.buffers - before.buffers) / MiB).toFixed(1)} MiB, ` +
        `RSS +${((after.rss - before.rss) / MiB).toFixed(1)} MiB\n`,
    );
    await replica.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
