import { AzureOpenAI } from 'openai';
import request from 'supertest';
import { DEFAULT_CATALOG } from '../../../core/models/catalog/catalog';
import { startFakeGemini, type FakeGemini } from '../../shared/fakes/gemini-upstream';
import { startFakeOpenAi, type FakeOpenAi } from '../../shared/fakes/openai-upstream';
import { modelsInProcess, type ModelsInProcess } from './fixture';

const OC_KEY = 'ollama-e2e-token-0123456789';
const GEMINI_KEY = 'AIzaE2eGeminiKey0123456789';

/**
 * The model gateway in process with two vendor upstreams behind group A: a model on an
 * OpenAI-compatible server and one on Gemini (both fakes speaking the real wire), reached with the
 * openai SDK's AzureOpenAI client (the app on an ephemeral port) and supertest. Upstream failures
 * come back as 502/504 in Azure's error format. A client that leaves mid-stream is
 * test/e2e/models/upstreams.test.ts's.
 */
describe('model gateway: vendor upstreams behind group A', () => {
  let p: ModelsInProcess;
  let url: string;
  let openai: FakeOpenAi;
  let gemini: FakeGemini;
  let key: string;
  const client = (deployment: string) =>
    new AzureOpenAI({ endpoint: `${url}/proxy/api/v1/azure`, apiKey: key, apiVersion: '2024-10-21', deployment, maxRetries: 0 });
  const raw = async (model: string, content: string) => {
    const res = await request(p.app)
      .post(`/proxy/api/v1/azure/openai/deployments/${model}/chat/completions?api-version=2024-10-21`)
      .set({ 'content-type': 'application/json', 'api-key': key })
      .send(JSON.stringify({ messages: [{ role: 'user', content }] }));
    return { status: res.status, body: res.body };
  };

  beforeAll(async () => {
    openai = await startFakeOpenAi({ answer: 'The local server says glaciers melt.' });
    gemini = await startFakeGemini({ answer: 'Gemini says the oceans warm and expand.' });
    process.env.E2E_OC_KEY = OC_KEY;
    process.env.E2E_GEMINI_KEY = GEMINI_KEY;
    p = await modelsInProcess({
      catalog: {
        models: [
          ...DEFAULT_CATALOG.models,
          {
            id: 'oc-chat',
            group: 'A',
            kind: 'chat',
            contextLength: 8192,
            upstream: { provider: 'openai-compatible', baseUrl: `${openai.url}/v1`, model: 'llama3.2', credentialEnv: 'E2E_OC_KEY' },
          },
          {
            id: 'gem-chat',
            group: 'A',
            kind: 'chat',
            contextLength: 8192,
            upstream: { provider: 'gemini', baseUrl: gemini.url, model: 'gemini-2.0-flash', credentialEnv: 'E2E_GEMINI_KEY' },
          },
        ],
      },
      // Short enough for the stall test to wait out, long enough for a healthy answer on a loaded machine.
      env: { MODELS_UPSTREAM_READ_TIMEOUT_MS: '3000', MODELS_UPSTREAM_RETRIES: '1' },
    });
    url = await p.listen();
    key = p.key;
  });
  afterAll(async () => {
    await p?.close();
    await openai?.close();
    await gemini?.close();
    delete process.env.E2E_OC_KEY;
    delete process.env.E2E_GEMINI_KEY;
  });

  it('answers from the OpenAI-compatible server, which got the upstream model name and its own credential', async () => {
    const r = await client('oc-chat').chat.completions.create({
      model: 'oc-chat',
      messages: [{ role: 'user', content: 'Why do glaciers melt?' }],
    });
    expect(r.choices[0].message.content).toBe('The local server says glaciers melt.');
    expect(r.choices[0].finish_reason).toBe('stop');
    expect(r.usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 2 });
    const sent = openai.requests.at(-1)!;
    expect(sent.path).toBe('/v1/chat/completions');
    // The caller reads the answer whole, so the upstream is asked for it whole too.
    expect(sent.json).toMatchObject({ model: 'llama3.2' });
    expect(sent.json.stream).toBeUndefined();
    expect(sent.headers.authorization).toBe(`Bearer ${OC_KEY}`);
    expect(JSON.stringify(sent.headers)).not.toContain(key);
  });

  it('streams from Gemini as Azure chunks, ending with the finish reason and usage', async () => {
    const stream = await client('gem-chat').chat.completions.create({
      model: 'gem-chat',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Why do oceans rise?' },
      ],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let finish: string | null = null;
    let usage;
    for await (const c of stream) {
      if (c.usage) usage = c.usage;
      for (const ch of c.choices) {
        text += ch.delta.content ?? '';
        finish = ch.finish_reason ?? finish;
      }
    }
    expect(text).toBe('Gemini says the oceans warm and expand.');
    expect(finish).toBe('stop');
    expect(usage).toMatchObject({ prompt_tokens: 9, completion_tokens: 6, total_tokens: 15 });
    const sent = gemini.requests.at(-1)!;
    expect(sent.path).toBe('/v1beta/models/gemini-2.0-flash:streamGenerateContent?alt=sse');
    expect(sent.headers['x-goog-api-key']).toBe(GEMINI_KEY);
    expect(sent.json.systemInstruction).toEqual({ parts: [{ text: 'Be brief.' }] });
  });

  it("answers an upstream 500 (after its retry) with 502 in Azure's error format", async () => {
    openai.script({ status: 500 }, { status: 500 });
    const r = await raw('oc-chat', 'first failing question');
    expect(r.status).toBe(502);
    expect(r.body).toEqual({
      error: { message: expect.stringContaining('failed (HTTP 500)'), type: 'api_error', param: null, code: 'upstream_error' },
    });
    gemini.script({ status: 401, message: `API key ${GEMINI_KEY} is wrong` });
    const mis = await raw('gem-chat', 'second failing question');
    expect(mis.status).toBe(502);
    expect(mis.body.error.code).toBe('upstream_misconfigured');
    expect(JSON.stringify(mis.body)).not.toContain(GEMINI_KEY);
  });

  it('answers an upstream that never answers with 504', async () => {
    gemini.script({ stall: true });
    const r = await raw('gem-chat', 'a question nobody answers');
    expect(r.status).toBe(504);
    expect(r.body.error).toMatchObject({ code: 'upstream_timeout', type: 'api_error' });
  });
});
