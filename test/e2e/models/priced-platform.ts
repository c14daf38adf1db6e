import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_CATALOG } from '../../../core/models/catalog/catalog';
import { startFakeOpenAi, type FakeOpenAi } from '../../shared/fakes/openai-upstream';
import { startInTemp, type Started } from '../shared/server';

/** The fake answers `ok` (one piece) with usage 12 prompt tokens and 1 completion token: 12 × $1000/M + 1 × $2000/M. */
export const PRICED_CALL_NANOS = 14_000_000;

/**
 * The whole platform with a model `priced` ($1000 in, $2000 out per million tokens) on a fake
 * OpenAI-wire upstream that reports usage: what the spend tests call. `credentialEnv` names the
 * variable the upstream's token is put in for the run (removed by `close`).
 */
export async function startPricedPlatform(credentialEnv: string): Promise<{ p: Started; openai: FakeOpenAi; close(): Promise<void> }> {
  const openai = await startFakeOpenAi({ answer: 'ok' });
  process.env[credentialEnv] = `${credentialEnv.toLowerCase()}-token-0123456789`;
  const file = join(tmpdir(), `catalog-${credentialEnv.toLowerCase()}-${process.pid}-${Date.now()}.json`);
  const priced = {
    id: 'priced',
    group: 'A',
    kind: 'chat',
    contextLength: 8192,
    maxOutputTokens: 100,
    price: { inputPerMillion: 1000, outputPerMillion: 2000 },
    upstream: { provider: 'openai-compatible', baseUrl: `${openai.url}/v1`, model: 'gpt-fake', credentialEnv },
  };
  writeFileSync(file, JSON.stringify({ models: [...DEFAULT_CATALOG.models, priced] }));
  const p = await startInTemp('all', { MODELS_CATALOG_FILE: file }).finally(() => rmSync(file, { force: true }));
  return {
    p,
    openai,
    close: async () => {
      await p.stop();
      await openai.close();
      delete process.env[credentialEnv];
    },
  };
}
