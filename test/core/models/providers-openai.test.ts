import { BadRequest, RateLimited, UpstreamFailed, UpstreamTimeout } from '../../../core/shared/errors';
import type { ModelProvider } from '../../../core/models/neutral';
import { azureOpenAiProvider } from '../../../core/models/vendors/azure';
import { openAiCompatibleProvider } from '../../../core/models/vendors/openai-compatible';
import { upstreamHttp, type UpstreamHttp } from '../../../core/models/upstream/http';
import { FAKE_PNG_B64, startFakeOpenAi, type FakeOpenAi } from '../../shared/fakes/openai-upstream';
import { drain, drainFailing, failure, modelOf, PNG_B64, tick } from './provider-helpers';

const KEY = 'azure-key-0123456789abcdef';
const env = { AZURE_TEST_KEY: KEY, LOCAL_TEST_KEY: 'local-token-abcdef' };
const hi = [{ role: 'user' as const, text: 'hi' }];

describe('Azure OpenAI adapter', () => {
  let fake: FakeOpenAi;
  let http: UpstreamHttp;
  let azure: ModelProvider;
  let quick: UpstreamHttp | undefined;
  beforeEach(async () => {
    fake = await startFakeOpenAi();
    // A healthy answer has room to pause on a loaded machine; the tests of a silence use `impatient`.
    http = upstreamHttp({ connectTimeoutMs: 1000, readTimeoutMs: 10_000, retries: 2, retryBaseMs: 5 });
    azure = azureOpenAiProvider(
      modelOf({ provider: 'azure-openai', baseUrl: `${fake.url}/`, model: 'gpt-4o-dep', credentialEnv: 'AZURE_TEST_KEY' }),
      { env, http },
    );
  });
  afterEach(async () => {
    await http.close();
    await quick?.close();
    quick = undefined;
    await fake.close();
  });
  /** The adapter with a 300 ms read timeout, for the tests that wait for it. */
  const impatient = () => {
    quick = upstreamHttp({ ...http.settings, readTimeoutMs: 300 });
    return azureOpenAiProvider(
      modelOf({ provider: 'azure-openai', baseUrl: `${fake.url}/`, model: 'gpt-4o-dep', credentialEnv: 'AZURE_TEST_KEY' }),
      { env, http: quick },
    );
  };

  it('streams the answer from the deployment, with the key, system prompt, image and sampling settings', async () => {
    const r = await drain(
      await azure.chat!({
        model: 'gpt-4o-dep',
        maxTokens: 50,
        temperature: 0.2,
        topP: 0.9,
        stop: ['END'],
        messages: [
          { role: 'system', text: 'Be brief.' },
          { role: 'user', text: 'What is this?', attachments: [{ kind: 'image', mimeType: 'image/png', data: PNG_B64 }] },
        ],
      }),
    );
    expect(r.pieces).toEqual(['Sea levels rise ', 'because glaciers and ', 'ice sheets melt ', 'as the climate ', 'warms.']);
    expect(r).toMatchObject({ finishReason: 'stop', usage: { promptTokens: 12, completionTokens: 5 } });
    const sent = fake.requests[0];
    expect(sent.path).toBe('/openai/deployments/gpt-4o-dep/chat/completions?api-version=2024-10-21');
    expect(sent.headers['api-key']).toBe(KEY);
    expect(sent.headers.authorization).toBeUndefined();
    expect(sent.json).toEqual({
      messages: [
        { role: 'system', content: 'Be brief.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_B64}` } },
          ],
        },
      ],
      max_completion_tokens: 50,
      temperature: 0.2,
      top_p: 0.9,
      stop: ['END'],
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it('asks for the whole answer at once when the caller reads it whole (stream false), with its usage and finish reason', async () => {
    fake.script({ finishReason: 'length', usage: { prompt_tokens: 7, completion_tokens: 3 } });
    const r = await drain(await azure.chat!({ model: 'gpt-4o-dep', messages: hi, stream: false }));
    expect(r).toMatchObject({
      pieces: ['Sea levels rise because glaciers and ice sheets melt as the climate warms.'],
      finishReason: 'length',
      usage: { promptTokens: 7, completionTokens: 3 },
    });
    expect(fake.requests[0].json.stream).toBeUndefined();
    expect(fake.requests[0].headers.accept).toBe('application/json');
    fake.script({ raw: '{"choices": []}' });
    await expect(drain(await azure.chat!({ model: 'd', messages: hi, stream: false }))).rejects.toMatchObject({
      code: 'upstream_bad_response',
    });
  });

  it('maps finish reasons: length and content_filter as they are, anything else without tool calls to stop', async () => {
    fake.script({ finishReason: 'length' }, { finishReason: 'content_filter', answer: [] }, { finishReason: 'eos' });
    expect((await drain(await azure.chat!({ model: 'd', messages: hi }))).finishReason).toBe('length');
    expect(await drain(await azure.chat!({ model: 'd', messages: hi }))).toMatchObject({ finishReason: 'content_filter', text: '' });
    expect((await drain(await azure.chat!({ model: 'd', messages: hi }))).finishReason).toBe('stop');
  });

  it('uses the catalog api-version', async () => {
    const pinned = azureOpenAiProvider(
      modelOf({ provider: 'azure-openai', baseUrl: fake.url, apiVersion: '2025-01-01-preview', credentialEnv: 'AZURE_TEST_KEY' }),
      { env, http },
    );
    await drain(await pinned.chat!({ model: 'dep', messages: hi }));
    expect(fake.requests[0].path).toBe('/openai/deployments/dep/chat/completions?api-version=2025-01-01-preview');
  });

  it("passes a 400 through with Azure's message, content_filter named", async () => {
    fake.script({ status: 400, message: "This model's maximum context length is 8192 tokens.", code: 'context_length_exceeded' });
    const e = await failure(azure.chat!({ model: 'd', messages: hi }));
    expect(e).toBeInstanceOf(BadRequest);
    expect(e).toMatchObject({ message: "This model's maximum context length is 8192 tokens.", code: 'upstream_rejected' });
    fake.script({
      status: 400,
      message: 'The response was filtered due to the prompt triggering content management policy.',
      code: 'content_filter',
    });
    expect(await failure(azure.chat!({ model: 'd', messages: hi }))).toMatchObject({ code: 'content_filter' });
  });

  it('answers 401 with 502 upstream_misconfigured naming Azure, never the key', async () => {
    fake.script({ status: 401, message: `Access denied due to invalid subscription key ${KEY}` });
    const e = await failure(azure.chat!({ model: 'd', messages: hi }));
    expect(e).toBeInstanceOf(UpstreamFailed);
    expect(e.code).toBe('upstream_misconfigured');
    expect(e.message).toContain('Azure OpenAI');
    expect(e.message).toContain('401');
    expect(e.message).not.toContain(KEY);
    expect(fake.requests).toHaveLength(1);
  });

  it('retries 429 then succeeds; retries 500 then answers 502; a long Retry-After is 429 at once', async () => {
    fake.script({ status: 429 }, { answer: 'ok now' });
    expect((await drain(await azure.chat!({ model: 'd', messages: hi }))).text).toBe('ok now');
    fake.script({ status: 500 }, { status: 500 }, { status: 500 });
    expect(await failure(azure.chat!({ model: 'd', messages: hi }))).toMatchObject({ code: 'upstream_error' });
    expect(fake.requests).toHaveLength(5);
    fake.script({ status: 429, headers: { 'retry-after': '20' } });
    const e = await failure(azure.chat!({ model: 'd', messages: hi }));
    expect(e).toBeInstanceOf(RateLimited);
    expect(e.retryAfterSeconds).toBe(20);
  });

  it('times out a deployment that never answers (504)', async () => {
    fake.script({ stall: true });
    expect(await failure(impatient().chat!({ model: 'd', messages: hi }))).toBeInstanceOf(UpstreamTimeout);
  });

  it('fails the stream when the upstream goes silent or resets midway; done says error', async () => {
    fake.script({ stallAfter: 3 });
    const stalled = await drainFailing(await impatient().chat!({ model: 'd', messages: hi }));
    expect(stalled.pieces).toEqual(['Sea levels rise ', 'because glaciers and ']);
    expect(stalled.error).toBeInstanceOf(UpstreamTimeout);
    expect(stalled.finishReason).toBe('error');
    fake.script({ resetAfter: 2 });
    const reset = await drainFailing(await azure.chat!({ model: 'd', messages: hi }));
    expect(reset.pieces).toEqual(['Sea levels rise ']);
    expect(reset.error).toMatchObject({ code: 'upstream_unavailable' });
    expect(reset.finishReason).toBe('error');
  });

  it("reads Azure's filter-results chunk; an error event midway is 502 upstream_error with the vendor's words", async () => {
    const sse = (...events: object[]) => ({
      raw: events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('') + 'data: [DONE]\n\n',
      contentType: 'text/event-stream',
    });
    fake.script(
      sse(
        { choices: [], prompt_filter_results: [{ prompt_index: 0, content_filter_results: {} }] },
        { choices: [{ delta: { content: 'fine' }, finish_reason: 'stop' }] },
      ),
      sse({ choices: [{ delta: { content: 'par' } }] }, { error: { message: 'The server had an error while processing your request.' } }),
      sse(
        { choices: [{ delta: { content: 'par' } }] },
        { object: 'error', message: 'vLLM engine died', type: 'InternalServerError', code: 500 },
      ),
    );
    expect(await drain(await azure.chat!({ model: 'd', messages: hi }))).toMatchObject({ text: 'fine', finishReason: 'stop' });
    const azureFailed = await drainFailing(await azure.chat!({ model: 'd', messages: hi }));
    expect(azureFailed).toMatchObject({ pieces: ['par'], finishReason: 'error', error: { code: 'upstream_error' } });
    expect(azureFailed.error.message).toContain('The server had an error');
    expect((await drainFailing(await azure.chat!({ model: 'd', messages: hi }))).error.message).toContain('vLLM engine died');
  });

  it('a stream that ends without finishing (a [DONE] alone is a stop), or with a chunk that is not JSON, is 502 upstream_bad_response', async () => {
    fake.script({ raw: 'data: {"choices":[{"delta":{"content":"half"}}]}\n\n', contentType: 'text/event-stream' });
    const cut = await drainFailing(await azure.chat!({ model: 'd', messages: hi }));
    expect(cut).toMatchObject({ pieces: ['half'], finishReason: 'error', error: { code: 'upstream_bad_response' } });
    fake.script({ raw: 'data: {"choices":[{"delta":{"content":"all"}}]}\n\ndata: [DONE]\n\n', contentType: 'text/event-stream' });
    expect(await drain(await azure.chat!({ model: 'd', messages: hi }))).toMatchObject({ pieces: ['all'], finishReason: 'stop' });
    fake.script({ raw: 'data: {oops\n\n', contentType: 'text/event-stream' });
    expect((await drainFailing(await azure.chat!({ model: 'd', messages: hi }))).error).toMatchObject({ code: 'upstream_bad_response' });
  });

  it('stops the upstream request when the caller aborts, before and during the answer', async () => {
    fake.script({ stall: true }, { stallAfter: 2 }, { stallAfter: 2 });
    const before = new AbortController();
    const pending = failure(azure.chat!({ model: 'd', messages: hi }, before.signal));
    while (!fake.requests.length) await tick();
    before.abort();
    expect((await pending).name).toBe('AbortError');
    await fake.requests[0].cut;

    const during = new AbortController();
    const stream = await azure.chat!({ model: 'd', messages: hi }, during.signal);
    const it = stream.pieces[Symbol.asyncIterator]();
    expect((await it.next()).value).toBe('Sea levels rise ');
    during.abort();
    expect(await failure(it.next())).toMatchObject({ name: 'AbortError' });
    await fake.requests[1].cut;
    expect((await stream.done).finishReason).toBe('error');

    // A caller that stops reading (the client left) closes the upstream request too.
    const left = await azure.chat!({ model: 'd', messages: hi });
    for await (const _ of left.pieces) break;
    await fake.requests[2].cut;
    expect(fake.requests[2].wasCut).toBe(true);
  });

  it('refuses to call without its credential (502) and sends nothing', async () => {
    const bare = azureOpenAiProvider(modelOf({ provider: 'azure-openai', baseUrl: fake.url, credentialEnv: 'AZURE_MISSING_KEY' }), {
      env,
      http,
    });
    expect(await failure(bare.chat!({ model: 'd', messages: hi }))).toMatchObject({ code: 'upstream_misconfigured' });
    expect(fake.requests).toHaveLength(0);
  });

  it('embeds (float), generates an image (b64_json, n 1) and transcribes (multipart, verbose_json)', async () => {
    const e = await azure.embed!({ model: 'emb-dep', inputs: ['alpha', 'beta'], dimensions: 8 });
    expect(e.vectors).toHaveLength(2);
    expect(e.vectors[0]).toBeInstanceOf(Float32Array);
    expect(e.vectors[0]).not.toEqual(e.vectors[1]);
    expect(e.promptTokens).toBe(6);
    expect(fake.requests[0]).toMatchObject({
      path: '/openai/deployments/emb-dep/embeddings?api-version=2024-10-21',
      json: { input: ['alpha', 'beta'], encoding_format: 'float', dimensions: 8 },
    });

    const img = await azure.generateImage!({ model: 'dalle', prompt: 'a cat', size: '1024x1024', quality: 'hd' });
    expect(img).toEqual({ b64: FAKE_PNG_B64, mimeType: 'image/png', revisedPrompt: 'A picture of a cat' });
    expect(fake.requests[1]).toMatchObject({
      path: '/openai/deployments/dalle/images/generations?api-version=2024-10-21',
      json: { prompt: 'a cat', n: 1, size: '1024x1024', quality: 'hd', response_format: 'b64_json' },
    });

    const t = await azure.transcribe!({
      model: 'whisper',
      audio: Buffer.from('RIFF-fake-wave'),
      filename: 'hello.wav',
      mimeType: 'audio/wav',
      language: 'en',
      temperature: 0,
    });
    expect(t).toEqual({
      text: 'Hello there. General Kenobi.',
      language: 'english',
      duration: 2.5,
      segments: [
        { id: 0, start: 0, end: 1.2, text: ' Hello there.' },
        { id: 1, start: 1.2, end: 2.5, text: ' General Kenobi.' },
      ],
    });
    const form = fake.requests[2];
    expect(form.path).toBe('/openai/deployments/whisper/audio/transcriptions?api-version=2024-10-21');
    expect(form.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    const body = form.body.toString();
    expect(body).toContain('name="file"; filename="hello.wav"\r\nContent-Type: audio/wav\r\n\r\nRIFF-fake-wave\r\n');
    expect(body).toContain('name="response_format"\r\n\r\nverbose_json\r\n');
    expect(body).toContain('name="language"\r\n\r\nen\r\n');
    expect(body).toContain('name="temperature"\r\n\r\n0\r\n');
    expect(body).not.toContain('name="model"');
    expect(form.headers['api-key']).toBe(KEY);
  });

  it("answers 502 upstream_bad_response for an answer without the vendor's fields", async () => {
    fake.script({ raw: '{"data":[{"url":"https://x"}]}' }, { raw: '{"data":[]}' });
    expect(await failure(azure.generateImage!({ model: 'dalle', prompt: 'a cat' }))).toMatchObject({ code: 'upstream_bad_response' });
    expect(await failure(azure.embed!({ model: 'e', inputs: ['x'] }))).toMatchObject({ code: 'upstream_bad_response' });
  });
});

describe('OpenAI-compatible adapter', () => {
  let fake: FakeOpenAi;
  let http: UpstreamHttp;
  beforeEach(async () => {
    fake = await startFakeOpenAi({ answer: 'Local models answer too.' });
    http = upstreamHttp({ connectTimeoutMs: 1000, readTimeoutMs: 300, retries: 1, retryBaseMs: 5 });
  });
  afterEach(async () => {
    await http.close();
    await fake.close();
  });

  it('speaks the same wire at {baseUrl}/..., the model in the body, Bearer only with a credential', async () => {
    const open = openAiCompatibleProvider(modelOf({ provider: 'openai-compatible', baseUrl: `${fake.url}/v1` }), { env, http });
    const r = await drain(
      await open.chat!({
        model: 'llama3.2',
        messages: [
          { role: 'assistant', text: 'Earlier.' },
          { role: 'tool', text: 'result' },
        ],
        maxTokens: 9,
      }),
    );
    expect(r.text).toBe('Local models answer too.');
    expect(fake.requests[0]).toMatchObject({
      path: '/v1/chat/completions',
      json: {
        model: 'llama3.2',
        max_tokens: 9,
        stream: true,
        messages: [
          { role: 'assistant', content: 'Earlier.' },
          { role: 'user', content: 'result' },
        ],
      },
    });
    expect(fake.requests[0].headers.authorization).toBeUndefined();

    const keyed = openAiCompatibleProvider(
      modelOf({ provider: 'openai-compatible', baseUrl: `${fake.url}/v1`, credentialEnv: 'LOCAL_TEST_KEY' }),
      { env, http },
    );
    await keyed.embed!({ model: 'nomic-embed-text', inputs: ['x'] });
    await keyed.generateImage!({ model: 'sd', prompt: 'p' });
    await keyed.transcribe!({ model: 'whisper-1', audio: Buffer.from('a'), filename: 'a.mp3', mimeType: 'audio/mpeg' });
    expect(fake.requests.slice(1).map((q) => q.path)).toEqual(['/v1/embeddings', '/v1/images/generations', '/v1/audio/transcriptions']);
    expect(fake.requests.slice(1).every((q) => q.headers.authorization === 'Bearer local-token-abcdef')).toBe(true);
    expect(fake.requests[1].json).toMatchObject({ model: 'nomic-embed-text' });
    expect(fake.requests[3].body.toString()).toContain('name="model"\r\n\r\nwhisper-1\r\n');
  });

  it('reports a server that is down as 502 upstream_unavailable', async () => {
    const url = fake.url;
    await fake.close();
    const open = openAiCompatibleProvider(modelOf({ provider: 'openai-compatible', baseUrl: `${url}/v1` }), { env, http });
    expect(await failure(open.chat!({ model: 'm', messages: hi }))).toMatchObject({ code: 'upstream_unavailable' });
    fake = await startFakeOpenAi();
  });
});
