import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AzureOpenAI } from 'openai';
import { DEFAULT_CATALOG } from '../../../core/models/catalog/catalog';
import { startFakeOpenAi, type FakeOpenAi } from '../../shared/fakes/openai-upstream';
import { startInTemp, type Started } from '../shared/server';

const OC_KEY = 'ollama-e2e-token-0123456789';

/**
 * The whole platform with a model on an OpenAI-compatible server behind group A (a fake speaking
 * the real wire), reached with the openai SDK's AzureOpenAI client: a client that leaves mid-stream
 * makes the gateway close its upstream request. End to end because leaving is a transport matter
 * (the SDK drops its connection to the platform's server midway). Answers and upstream failures
 * are tested in process in test/rest/models/upstreams.test.ts.
 */
describe('model gateway: vendor upstreams behind group A', () => {
  let p: Started;
  let openai: FakeOpenAi;
  let key: string;
  const client = (deployment: string) =>
    new AzureOpenAI({ endpoint: `${p.url}/proxy/api/v1/azure`, apiKey: key, apiVersion: '2024-10-21', deployment, maxRetries: 0 });

  beforeAll(async () => {
    openai = await startFakeOpenAi({ answer: 'The local server says glaciers melt.' });
    process.env.E2E_OC_KEY = OC_KEY;
    const file = join(tmpdir(), `catalog-upstreams-${process.pid}-${Date.now()}.json`);
    writeFileSync(
      file,
      JSON.stringify({
        models: [
          ...DEFAULT_CATALOG.models,
          {
            id: 'oc-chat',
            group: 'A',
            kind: 'chat',
            contextLength: 8192,
            upstream: { provider: 'openai-compatible', baseUrl: `${openai.url}/v1`, model: 'llama3.2', credentialEnv: 'E2E_OC_KEY' },
          },
        ],
      }),
    );
    // The default read timeout (60 s): the stalled upstream request can only be cut by the client leaving.
    p = await startInTemp('all', { MODELS_CATALOG_FILE: file }).finally(() => rmSync(file, { force: true }));
    key = p.bootstrap!.values.api_key!;
  }, 60_000);
  afterAll(async () => {
    await p?.stop();
    await openai?.close();
    delete process.env.E2E_OC_KEY;
  });

  it('closes the upstream request when the client leaves mid-stream', async () => {
    openai.script({ answer: ['one ', 'two ', 'three ', 'four '], stallAfter: 3 });
    const before = openai.requests.length;
    const stream = await client('oc-chat').chat.completions.create({
      model: 'oc-chat',
      messages: [{ role: 'user', content: 'Count slowly, please.' }],
      stream: true,
    });
    let seen = '';
    for await (const c of stream) {
      seen += c.choices[0]?.delta.content ?? '';
      if (seen.includes('two')) break;
    }
    const upstream = openai.requests[before];
    await upstream.cut;
    expect(upstream.wasCut).toBe(true);
    expect(seen).toBe('one two ');
  });
});
