import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_CATALOG } from '../../core/models/catalog/catalog';
import { chatFixture, type ChatFixture } from '../e2e/chat/fixture';
import { startFakeOpenAi, type FakeOpenAi } from '../shared/fakes/openai-upstream';
import { leaveEveryWay } from './leaving';

/**
 * A client that leaves a streamed answer (or a whole one it waits for) stops the model call behind
 * it, subgraphs in process: the fake upstream model streams three pieces and then stalls, so only
 * the client leaving can end its request; the tests wait for the upstream to see its request cut.
 */
let f: ChatFixture;
let upstream: FakeOpenAi;

beforeAll(async () => {
  upstream = await startFakeOpenAi();
  process.env.E2E_GW_LEAVE_OC_KEY = 'gateway-leave-oc-token-0123456789';
  const file = join(tmpdir(), `catalog-gw-leave-${process.pid}-${Date.now()}.json`);
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
          upstream: {
            provider: 'openai-compatible',
            baseUrl: `${upstream.url}/v1`,
            model: 'llama3.2',
            credentialEnv: 'E2E_GW_LEAVE_OC_KEY',
          },
        },
      ],
    }),
  );
  f = await chatFixture({ MODELS_CATALOG_FILE: file }).finally(() => rmSync(file, { force: true }));
}, 60_000);
afterAll(async () => {
  await f?.stop();
  await upstream?.close();
  delete process.env.E2E_GW_LEAVE_OC_KEY;
});

leaveEveryWay(() => ({ base: f.url, upstream, headers: { authorization: f.a, 'api-key': f.apiKey } }));
