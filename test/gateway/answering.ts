import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_CATALOG } from '../../core/models/catalog/catalog';
import { chatFixture, type ChatFixture } from '../e2e/chat/fixture';
import { post, sseChunks, type Chunk } from '../e2e/chat/wire';
import { startFakeOpenAi, type FakeOpenAi } from '../shared/fakes/openai-upstream';

export const ASPIRIN = 'What are the side effects of aspirin?';

/** A started platform answering subscriptions: its chat fixture, a fake OpenAI upstream behind model `oc-chat`, the REST stream's chunks for ASPIRIN. */
export interface Answering {
  f: ChatFixture;
  upstream: FakeOpenAi;
  rest: Chunk[];
  stop(): Promise<void>;
}

/** Starts it; `tag` names its upstream key's variable and catalog file, `env` adds to the platform's. */
export async function answeringPlatform(tag: string, env: Record<string, string> = {}): Promise<Answering> {
  const upstream = await startFakeOpenAi({ answer: 'The upstream says aspirin upsets the stomach.' });
  const keyVar = `E2E_${tag.toUpperCase().replace(/\W/g, '_')}_OC_KEY`;
  process.env[keyVar] = `${tag}-oc-token-0123456789`;
  const file = join(tmpdir(), `catalog-${tag}-${process.pid}-${Date.now()}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      models: [
        ...DEFAULT_CATALOG.models,
        {
          id: 'oc-chat',
          group: 'A',
          kind: 'chat',
          contextLength: 4096,
          upstream: { provider: 'openai-compatible', baseUrl: `${upstream.url}/v1`, model: 'llama3.2', credentialEnv: keyVar },
        },
      ],
    }),
  );
  const f = await chatFixture({ MODELS_CATALOG_FILE: file, ...env }).finally(() => rmSync(file, { force: true }));
  const r = sseChunks((await post(`${f.url}/api/stream_generate_answer`, f.body(ASPIRIN))).text);
  if (!r.done) throw new Error('the REST stream did not finish');
  return {
    f,
    upstream,
    rest: r.chunks,
    async stop() {
      await f.stop();
      await upstream.close();
      delete process.env[keyVar];
    },
  };
}
