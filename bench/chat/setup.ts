/**
 * What `npm run bench:chat` measures against: the stamping fake upstream (bench/chat/upstream.ts,
 * its own process), the platform (`platform start`, a catalog chat model on `openai-compatible`
 * pointed at the fake, the chat proxy's default model) holding SciFact's abstracts in the
 * bootstrap tenant, a user token and the bootstrap LM key with the cache and guards off.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DEFAULT_CATALOG } from '../../core/models/catalog/catalog';
import { startChild } from '../shared/procs';
import { tokens, type Bootstrap, type Tokens } from '../shared/http-client';
import type { Doc } from '../shared/scifact';
import { ingest, ingestObject } from '../search/measure';
import { ROOT, startPlatform, type Platform } from '../shared/platform';

export const CHAT_MODEL = 'bench-chat';

export async function startUpstream(dir: string): Promise<string> {
  const file = join(dir, 'upstream.json');
  const child = startChild('upstream', [join(ROOT, 'dist', 'bench', 'chat', 'upstream.js')], {
    cwd: ROOT,
    env: { ...process.env, BENCH_UPSTREAM_FILE: file },
    logFile: join(dir, 'upstream.log'),
  });
  for (let i = 0; i < 100 && !existsSync(file); i++) await sleep(100);
  if (!existsSync(file)) throw new Error(`the fake upstream did not start:\n${child.output()}`);
  return (JSON.parse(readFileSync(file, 'utf8')) as { url: string }).url;
}

export interface ChatPlatform extends Platform {
  tenant: string;
  tok: Tokens;
  /** The LM key with its options: `<key>/{"is_cache": 0, "use_guard": 0}`. */
  apiKey: string;
  ingestSeconds: number;
}

/** For the platforms started after: a catalog file in `dir` with CHAT_MODEL answered by `upstream`, the chat proxy's default model. */
export function useChatModel(dir: string, upstream: string): void {
  const catalog = join(dir, 'catalog.json');
  writeFileSync(
    catalog,
    JSON.stringify({
      models: [
        ...DEFAULT_CATALOG.models,
        {
          id: CHAT_MODEL,
          group: 'A',
          kind: 'chat',
          contextLength: 8192,
          maxOutputTokens: 256,
          upstream: { provider: 'openai-compatible', baseUrl: `${upstream}/v1`, model: 'bench-model' },
        },
      ],
    }),
  );
  process.env.MODELS_CATALOG_FILE = catalog;
  process.env.CHAT_DEFAULT_MODEL = CHAT_MODEL;
}

/** The platform over a fresh data dir with a catalog model answered by `upstream`, and `docs` ingested. */
export async function startChatPlatform(
  dir: string,
  port: number,
  upstream: string,
  docs: readonly Doc[],
  concurrency: number,
): Promise<ChatPlatform> {
  useChatModel(dir, upstream);
  const platform = await startPlatform(dir, port);
  const boot = JSON.parse(readFileSync(join(platform.dataDir, 'bootstrap.json'), 'utf8')) as Bootstrap & { tenant_id?: string };
  if (!boot.api_key) throw new Error('bootstrap.json holds no api_key');
  if (!boot.tenant_id) throw new Error('bootstrap.json holds no tenant_id');
  const tok = tokens(platform.url, boot);
  const post = ingestObject(platform.url, tok);
  const { seconds } = await ingest('ingest SciFact', docs, concurrency, (d) =>
    post({ title: d.title, content: d.text, ext_user_id_ref: d.id }),
  );
  return { ...platform, tenant: boot.tenant_id, tok, apiKey: `${boot.api_key}/{"is_cache": 0, "use_guard": 0}`, ingestSeconds: seconds };
}

/** The raw access token (`request.user_cred.token`), valid for at least another minute. */
export const userToken = async (tok: Tokens) => (await tok.headers()).authorization.slice('Bearer '.length);

/** A stream_generate_answer body asking `query` as the bootstrap tenant's user (test/e2e/chat/fixture.ts's shape). */
export const chatBody = (p: { tenant: string; apiKey: string }, token: string, query: string) =>
  JSON.stringify({
    request: {
      user_cred: { token, client: { tenant_id: p.tenant } },
      bot_config: { caller_version: '1' },
      task_process: { service: 'bench' },
      kvp: {},
    },
    query,
    api_key: p.apiKey,
    model_info: { modelId: CHAT_MODEL },
  });
