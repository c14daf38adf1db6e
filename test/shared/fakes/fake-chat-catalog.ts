import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_CATALOG } from '../../../core/models/catalog/catalog';

/**
 * A catalog file (MODELS_CATALOG_FILE) holding the built-in models and `oc-chat`, a chat model on a
 * fake OpenAI-compatible upstream (openai-upstream.ts), so a test can make an answer stall, fail
 * midway, or see the gateway cut its call. `remove()` once the platform has read it.
 */
export function fakeChatCatalog(upstreamUrl: string): { file: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'catalog-fake-chat-'));
  const file = join(dir, 'catalog.json');
  const ocChat = {
    id: 'oc-chat',
    group: 'A',
    kind: 'chat',
    contextLength: 8192,
    upstream: { provider: 'openai-compatible', baseUrl: `${upstreamUrl}/v1`, model: 'llama3.2' },
  };
  writeFileSync(file, JSON.stringify({ models: [...DEFAULT_CATALOG.models, ocChat] }));
  return { file, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
