import { BadRequest, UpstreamFailed, UpstreamTimeout } from '../../../core/shared/errors';
import type { ModelProvider } from '../../../core/models/neutral';
import { geminiProvider } from '../../../core/models/vendors/gemini';
import { upstreamHttp, type UpstreamHttp } from '../../../core/models/upstream/http';
import { startFakeGemini, type FakeGemini } from '../../shared/fakes/gemini-upstream';
import { drain, drainFailing, failure, modelOf, PNG_B64 } from './provider-helpers';

const KEY = 'AIzaFakeGeminiKey0123456789';
const env = { GEMINI_TEST_KEY: KEY };
const hi = [{ role: 'user' as const, text: 'hi' }];

describe('Gemini adapter', () => {
  let fake: FakeGemini;
  let http: UpstreamHttp;
  let gemini: ModelProvider;
  let quick: UpstreamHttp | undefined;
  beforeEach(async () => {
    fake = await startFakeGemini();
    // A healthy answer has room to pause on a loaded machine; the tests of a silence use `impatient`.
    http = upstreamHttp({ connectTimeoutMs: 1000, readTimeoutMs: 10_000, retries: 2, retryBaseMs: 5 });
    gemini = geminiProvider(modelOf({ provider: 'gemini', baseUrl: fake.url, credentialEnv: 'GEMINI_TEST_KEY' }), { env, http });
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
    return geminiProvider(modelOf({ provider: 'gemini', baseUrl: fake.url, credentialEnv: 'GEMINI_TEST_KEY' }), { env, http: quick });
  };

  it('streams generateContent: system instruction, model turns, inline data, generation config, usage', async () => {
    const r = await drain(
      await gemini.chat!({
        model: 'gemini-2.0-flash',
        maxTokens: 64,
        temperature: 0.5,
        topP: 0.8,
        stop: ['###'],
        messages: [
          { role: 'system', text: 'Answer in one line.' },
          { role: 'user', text: 'Earlier question' },
          { role: 'assistant', text: 'Earlier answer' },
          {
            role: 'user',
            text: 'And this?',
            attachments: [
              { kind: 'image', mimeType: 'image/png', data: PNG_B64 },
              { kind: 'Docs', mimeType: 'application/pdf', data: 'JVBERi0=' },
            ],
          },
        ],
      }),
    );
    expect(r.pieces).toEqual(['Ice melts and ', 'the oceans expand ', 'as they warm.']);
    expect(r).toMatchObject({ finishReason: 'stop', usage: { promptTokens: 9, completionTokens: 6 } });
    const sent = fake.requests[0];
    expect(sent.path).toBe('/v1beta/models/gemini-2.0-flash:streamGenerateContent?alt=sse');
    expect(sent.headers['x-goog-api-key']).toBe(KEY);
    expect(sent.json).toEqual({
      systemInstruction: { parts: [{ text: 'Answer in one line.' }] },
      contents: [
        { role: 'user', parts: [{ text: 'Earlier question' }] },
        { role: 'model', parts: [{ text: 'Earlier answer' }] },
        {
          role: 'user',
          parts: [
            { text: 'And this?' },
            { inlineData: { mimeType: 'image/png', data: PNG_B64 } },
            { inlineData: { mimeType: 'application/pdf', data: 'JVBERi0=' } },
          ],
        },
      ],
      generationConfig: { maxOutputTokens: 64, temperature: 0.5, topP: 0.8, stopSequences: ['###'] },
    });
  });

  it('asks generateContent for the whole answer when the caller reads it whole (stream false)', async () => {
    fake.script({ finishReason: 'MAX_TOKENS' });
    const r = await drain(await gemini.chat!({ model: 'gemini-2.0-flash', messages: hi, stream: false }));
    expect(r).toMatchObject({
      pieces: ['Ice melts and the oceans expand as they warm.'],
      finishReason: 'length',
      usage: { promptTokens: 9, completionTokens: 6 },
    });
    expect(fake.requests[0].path).toBe('/v1beta/models/gemini-2.0-flash:generateContent');
  });

  it('maps finish reasons, and a blocked prompt to content_filter with no text', async () => {
    fake.script(
      { finishReason: 'MAX_TOKENS' },
      { finishReason: 'SAFETY' },
      { finishReason: 'RECITATION' },
      { finishReason: 'OTHER' },
      { blockReason: 'PROHIBITED_CONTENT' },
    );
    const reasons = [];
    for (let i = 0; i < 4; i++) reasons.push((await drain(await gemini.chat!({ model: 'g', messages: hi }))).finishReason);
    expect(reasons).toEqual(['length', 'content_filter', 'content_filter', 'stop']);
    expect(await drain(await gemini.chat!({ model: 'g', messages: hi }))).toMatchObject({ pieces: [], finishReason: 'content_filter' });
  });

  it("passes a 400 through with Gemini's message; a bad API key is 502 misconfigured, never echoed", async () => {
    fake.script({ status: 400, message: '* GenerateContentRequest.contents: contents is not specified' });
    const e = await failure(gemini.chat!({ model: 'g', messages: hi }));
    expect(e).toBeInstanceOf(BadRequest);
    expect(e).toMatchObject({ message: '* GenerateContentRequest.contents: contents is not specified', code: 'upstream_rejected' });
    fake.script(
      { status: 400, message: `API key not valid. Please pass a valid API key. ${KEY}`, code: 'API_KEY_INVALID' },
      { status: 403, message: 'denied' },
    );
    for (const status of ['400', '403']) {
      const bad = await failure(gemini.chat!({ model: 'g', messages: hi }));
      expect(bad).toBeInstanceOf(UpstreamFailed);
      expect(bad.code).toBe('upstream_misconfigured');
      expect(bad.message).toContain(`Gemini`);
      expect(bad.message).toContain(status);
      expect(bad.message).not.toContain(KEY);
    }
  });

  it('retries 429 and 500, then gives up with 502', async () => {
    fake.script({ status: 429 }, { status: 503 }, { answer: 'finally' });
    expect((await drain(await gemini.chat!({ model: 'g', messages: hi }))).text).toBe('finally');
    fake.script({ status: 500 }, { status: 500 }, { status: 500 });
    expect(await failure(gemini.chat!({ model: 'g', messages: hi }))).toMatchObject({ code: 'upstream_error' });
    expect(fake.requests).toHaveLength(6);
  });

  it('times out before the answer (504) and midway (pieces throw, done says error)', async () => {
    fake.script({ stall: true }, { stallAfter: 1 });
    const slowToTell = impatient();
    expect(await failure(slowToTell.chat!({ model: 'g', messages: hi }))).toBeInstanceOf(UpstreamTimeout);
    const midway = await drainFailing(await slowToTell.chat!({ model: 'g', messages: hi }));
    expect(midway).toMatchObject({ pieces: ['Ice melts and '], finishReason: 'error' });
    expect(midway.error).toBeInstanceOf(UpstreamTimeout);
  });

  it('aborts the upstream request when the caller goes away', async () => {
    fake.script({ stallAfter: 1 });
    const controller = new AbortController();
    const stream = await gemini.chat!({ model: 'g', messages: hi }, controller.signal);
    const it = stream.pieces[Symbol.asyncIterator]();
    await it.next();
    controller.abort();
    await failure(it.next());
    await fake.requests[0].cut;
    expect((await stream.done).finishReason).toBe('error');
    expect(fake.requests[0].wasCut).toBe(true);
  });

  it('embeds with batchEmbedContents', async () => {
    const r = await gemini.embed!({ model: 'text-embedding-004', inputs: ['one', 'two', 'three'], dimensions: 8 });
    expect(r.vectors.map((v) => v.length)).toEqual([8, 8, 8]);
    expect(r.vectors[0]).not.toEqual(r.vectors[1]);
    expect(fake.requests[0]).toMatchObject({
      path: '/v1beta/models/text-embedding-004:batchEmbedContents',
      json: {
        requests: [
          { model: 'models/text-embedding-004', content: { parts: [{ text: 'one' }] }, outputDimensionality: 8 },
          { model: 'models/text-embedding-004', content: { parts: [{ text: 'two' }] }, outputDimensionality: 8 },
          { model: 'models/text-embedding-004', content: { parts: [{ text: 'three' }] }, outputDimensionality: 8 },
        ],
      },
    });
    fake.script({ raw: '{"embeddings":[{"values":"nope"}]}' });
    expect(await failure(gemini.embed!({ model: 'e', inputs: ['x'] }))).toMatchObject({ code: 'upstream_bad_response' });
  });
});
