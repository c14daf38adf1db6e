import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_CATALOG } from '../../../core/models/catalog';
import { startInTemp, type Started } from '../shared/server';

export const SOURCES = 'Sources:\n[1] Glaciers retreat as the climate warms. Sea levels rise as ice melts.\n[2] Sourdough bread needs a starter.';
export const QUESTION = 'Why do sea levels rise?';
export const ANSWER = 'Sea levels rise as ice melts.';

/**
 * The platform with the default catalog plus two group C models on the local provider that take
 * images, documents and videos: `nova-local`, and one named like a Bedrock inference profile (its
 * `:` and `.` must survive the AWS SDK's path encoding). `local-chat` stays text only.
 */
export async function startGroupC(): Promise<Started> {
  const file = join(tmpdir(), `catalog-group-c-${process.pid}-${Date.now()}.json`);
  const multimodal = { group: 'C', kind: 'chat', upstream: { provider: 'local' }, contextLength: 8192, maxOutputTokens: 1024, inputKinds: ['text', 'image', 'Docs', 'Video'] };
  writeFileSync(file, JSON.stringify({ models: [...DEFAULT_CATALOG.models, { id: 'nova-local', ...multimodal }, { id: 'us.local.nova-pro-v1:0', ...multimodal }] }));
  return startInTemp('all', { MODELS_CATALOG_FILE: file }).finally(() => rmSync(file, { force: true }));
}
