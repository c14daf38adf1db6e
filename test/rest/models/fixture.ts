import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_CATALOG } from '../../../core/models/catalog/catalog';
import { inProcess, type InProcess } from '../../shared/in-process';

export const SOURCES =
  'Sources:\n[1] Glaciers retreat as the climate warms. Sea levels rise as ice melts.\n[2] Sourdough bread needs a starter.';
export const QUESTION = 'Why do sea levels rise?';
export const ANSWER = 'Sea levels rise as ice melts.';

/**
 * The default catalog plus two group C models on the local provider that take images, documents
 * and videos: `nova-local`, and one named like a Bedrock inference profile (its `:` and `.` must
 * survive the AWS SDK's path encoding). `local-chat` stays text only.
 */
export function groupCCatalog() {
  const multimodal = {
    group: 'C',
    kind: 'chat',
    upstream: { provider: 'local' },
    contextLength: 8192,
    maxOutputTokens: 1024,
    inputKinds: ['text', 'image', 'Docs', 'Video'],
  };
  return { models: [...DEFAULT_CATALOG.models, { id: 'nova-local', ...multimodal }, { id: 'us.local.nova-pro-v1:0', ...multimodal }] };
}

export interface ModelsInProcess extends InProcess {
  /** The demo tenant's LM key, made by the first start. */
  key: string;
  /** A new LM key, made by `platform key create --name <name> <flags>` against the instance serving here. */
  newKey(name: string, ...flags: string[]): Promise<string>;
}

/**
 * The model gateway's REST face in process (see test/shared/in-process.ts), with `catalog` as its
 * MODELS_CATALOG_FILE when given (the file is read at open and removed then).
 */
export async function modelsInProcess(opts: { catalog?: object; env?: Record<string, string> } = {}): Promise<ModelsInProcess> {
  const dir = opts.catalog ? mkdtempSync(join(tmpdir(), 'catalog-')) : undefined;
  const env = { ...opts.env };
  if (dir) {
    env.MODELS_CATALOG_FILE = join(dir, 'catalog.json');
    writeFileSync(env.MODELS_CATALOG_FILE, JSON.stringify(opts.catalog));
  }
  const p = await inProcess(['models'], env).finally(() => dir && rmSync(dir, { recursive: true, force: true }));
  return Object.assign(p, {
    key: p.bootstrap.api_key,
    newKey: async (name: string, ...flags: string[]) => (await p.cli('key', 'create', '--name', name, ...flags)).api_key as string,
  });
}

/** A port nothing listens on (it was free a moment ago): an upstream that cannot be reached. */
export const closedPort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const srv = createServer().once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
