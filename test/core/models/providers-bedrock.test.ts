import { BadRequest, RateLimited, UpstreamFailed, UpstreamTimeout } from '../../../core/shared/errors';
import type { ModelProvider } from '../../../core/models/neutral';
import { bedrockProvider } from '../../../core/models/vendors/bedrock';
import { upstreamHttp, type UpstreamHttp } from '../../../core/models/upstream/http';
import { vectorOf } from '../../shared/fakes/fake-http';
import { modelIdOf, startFakeBedrock, type FakeBedrock } from '../../shared/fakes/bedrock-upstream';
import { drain, drainFailing, failure, modelOf, PNG_B64 } from './provider-helpers';

const ACCESS_KEY = 'AKIAFAKEACCESS01';
const SECRET = 'fakeSecretAccessKey/0123456789abcdefXYZ';
const env = { BEDROCK_TEST_CREDENTIAL: `${ACCESS_KEY}:${SECRET}` };
const hi = [{ role: 'user' as const, text: 'hi' }];

/** The Bedrock adapter through the real AWS SDK (SigV4, event-stream decoding) against a fake runtime over HTTP/2. */
describe('Bedrock adapter', () => {
  let fake: FakeBedrock;
  let http: UpstreamHttp;
  let bedrock: ModelProvider;
  beforeEach(async () => {
    fake = await startFakeBedrock();
    // A healthy stream has room to pause on a loaded machine; the tests of a silence use `impatient`.
    http = upstreamHttp({ connectTimeoutMs: 1000, readTimeoutMs: 10_000, retries: 2, retryBaseMs: 5 });
    bedrock = bedrockProvider(
      modelOf({ provider: 'bedrock', baseUrl: fake.url, region: 'eu-west-1', credentialEnv: 'BEDROCK_TEST_CREDENTIAL' }),
      { env, http },
    );
  });
  /** The adapter with a 400 ms read timeout (and `retries`), for the tests that wait for it. */
  const impatient = (retries = http.settings.retries) =>
    bedrockProvider(modelOf({ provider: 'bedrock', baseUrl: fake.url, credentialEnv: 'BEDROCK_TEST_CREDENTIAL' }), {
      env,
      http: { ...http, settings: { ...http.settings, readTimeoutMs: 400, retries } },
    });
  afterEach(async () => {
    await http.close();
    await fake.close();
  });

  it('streams ConverseStream: system blocks, merged turns, image/document/video blocks, inference config, usage', async () => {
    const r = await drain(
      await bedrock.chat!({
        model: 'amazon.nova-pro-v1:0',
        maxTokens: 100,
        temperature: 0.1,
        topP: 0.5,
        stop: ['Human:'],
        messages: [
          { role: 'system', text: 'You are terse.' },
          { role: 'user', text: 'Look:', attachments: [{ kind: 'image', mimeType: 'image/png', data: PNG_B64 }] },
          {
            role: 'user',
            text: 'and read',
            attachments: [{ kind: 'Docs', mimeType: 'application/pdf', data: 'JVBERi0=', name: 'Q3 report.pdf' }],
          },
          { role: 'assistant', text: 'Done.' },
          { role: 'user', text: 'Now watch', attachments: [{ kind: 'Video', mimeType: 'video/mp4', data: 'AAAAIGZ0eXA=' }] },
        ],
      }),
    );
    expect(r.pieces).toEqual(['Warming water expands ', 'and land ice ', 'melts into the ', 'sea.']);
    expect(r).toMatchObject({ finishReason: 'stop', usage: { promptTokens: 10, completionTokens: 4 } });
    const sent = fake.requests[0];
    expect(sent.path).toBe('/model/amazon.nova-pro-v1%3A0/converse-stream');
    expect(modelIdOf(sent)).toBe('amazon.nova-pro-v1:0');
    // Signed with the access key for the catalog's region; the secret itself never travels.
    expect(sent.headers.authorization).toContain(`Credential=${ACCESS_KEY}/`);
    expect(sent.headers.authorization).toContain('/eu-west-1/bedrock/aws4_request');
    expect(JSON.stringify(sent.headers)).not.toContain(SECRET);
    expect(sent.json).toEqual({
      system: [{ text: 'You are terse.' }],
      messages: [
        {
          role: 'user',
          content: [
            { text: 'Look:' },
            { image: { format: 'png', source: { bytes: PNG_B64 } } },
            { text: 'and read' },
            { document: { format: 'pdf', name: 'Q3 report', source: { bytes: 'JVBERi0=' } } },
          ],
        },
        { role: 'assistant', content: [{ text: 'Done.' }] },
        { role: 'user', content: [{ text: 'Now watch' }, { video: { format: 'mp4', source: { bytes: 'AAAAIGZ0eXA=' } } }] },
      ],
      inferenceConfig: { maxTokens: 100, temperature: 0.1, topP: 0.5, stopSequences: ['Human:'] },
    });
  });

  it('maps stop reasons', async () => {
    fake.script(
      { stopReason: 'max_tokens' },
      { stopReason: 'guardrail_intervened' },
      { stopReason: 'content_filtered' },
      { stopReason: 'stop_sequence' },
      { stopReason: 'tool_use' },
    );
    const reasons = [];
    for (let i = 0; i < 5; i++) reasons.push((await drain(await bedrock.chat!({ model: 'm', messages: hi }))).finishReason);
    expect(reasons).toEqual(['length', 'content_filter', 'content_filter', 'stop', 'tool_calls']);
  });

  it('refuses a media type Converse does not take (400) before calling', async () => {
    const e = await failure(
      bedrock.chat!({
        model: 'm',
        messages: [{ role: 'user', text: 'x', attachments: [{ kind: 'image', mimeType: 'image/tiff', data: 'AA==' }] }],
      }),
    );
    expect(e).toMatchObject({ code: 'unsupported_input' });
    expect(fake.requests).toHaveLength(0);
  });

  it('maps SDK errors: ValidationException 400 with its message, AccessDenied/ResourceNotFound 502 misconfigured', async () => {
    fake.script({ status: 400, message: 'The provided model identifier is invalid.' });
    const v = await failure(bedrock.chat!({ model: 'm', messages: hi }));
    expect(v).toBeInstanceOf(BadRequest);
    expect(v).toMatchObject({ message: 'The provided model identifier is invalid.', code: 'upstream_rejected' });
    for (const status of [403, 404]) {
      fake.script({ status, message: `User ${ACCESS_KEY} with secret ${SECRET} is not authorized` });
      const e = await failure(bedrock.chat!({ model: 'm', messages: hi }));
      expect(e).toBeInstanceOf(UpstreamFailed);
      expect(e.code).toBe('upstream_misconfigured');
      expect(e.message).toContain('Bedrock');
      expect(e.message).not.toContain(SECRET);
    }
  });

  it('lets the SDK retry throttling and server errors, then maps what is left (429, 502)', async () => {
    fake.script({ status: 429 }, { status: 500 }, { answer: 'third try' });
    expect((await drain(await bedrock.chat!({ model: 'm', messages: hi }))).text).toBe('third try');
    expect(fake.requests).toHaveLength(3);
    fake.script({ status: 429 }, { status: 429 }, { status: 429 });
    expect(await failure(bedrock.chat!({ model: 'm', messages: hi }))).toBeInstanceOf(RateLimited);
    fake.script({ status: 503 }, { status: 500 }, { status: 500 });
    expect(await failure(bedrock.chat!({ model: 'm', messages: hi }))).toMatchObject({ code: 'upstream_error' });
    expect(fake.requests).toHaveLength(9);
  });

  it('times out before the answer (504)', async () => {
    const once = impatient(0);
    fake.script({ stall: true });
    expect(await failure(once.chat!({ model: 'm', messages: hi }))).toBeInstanceOf(UpstreamTimeout);
  });

  it('fails the stream when it goes silent midway (504) or sends an exception event (502); done says error', async () => {
    fake.script({ stallAfter: 2 }, { exception: 'modelStreamErrorException', answer: ['partial '] });
    const silent = await drainFailing(await impatient().chat!({ model: 'm', messages: hi }));
    expect(silent).toMatchObject({ pieces: ['Warming water expands '], finishReason: 'error' });
    expect(silent.error).toBeInstanceOf(UpstreamTimeout);
    const broken = await drainFailing(await bedrock.chat!({ model: 'm', messages: hi }));
    expect(broken).toMatchObject({ pieces: ['partial '], finishReason: 'error', error: { code: 'upstream_error' } });
  });

  it('closes the upstream stream when the caller aborts or stops reading', async () => {
    fake.script({ stallAfter: 2 }, { stallAfter: 2 });
    const controller = new AbortController();
    const stream = await bedrock.chat!({ model: 'm', messages: hi }, controller.signal);
    const it = stream.pieces[Symbol.asyncIterator]();
    expect((await it.next()).value).toBe('Warming water expands ');
    controller.abort();
    await failure(it.next());
    await fake.requests[0].cut;
    expect((await stream.done).finishReason).toBe('error');

    const left = await bedrock.chat!({ model: 'm', messages: hi });
    for await (const _ of left.pieces) break;
    await fake.requests[1].cut;
    expect(fake.requests[1].wasCut).toBe(true);
  });

  it('embeds with InvokeModel and a Titan body, one call per input, in order', async () => {
    const r = await bedrock.embed!({ model: 'amazon.titan-embed-text-v2:0', inputs: ['one two', 'three', 'four five six'], dimensions: 8 });
    expect(r.vectors).toHaveLength(3);
    expect(r.promptTokens).toBe(6);
    expect(fake.requests.map((q) => q.path)).toEqual(Array(3).fill('/model/amazon.titan-embed-text-v2%3A0/invoke'));
    expect(fake.requests.map((q) => q.json.inputText).sort()).toEqual(['four five six', 'one two', 'three']);
    expect(fake.requests[0].json.dimensions).toBe(8);
    expect(r.vectors.map((v) => Array.from(v))).toEqual(
      ['one two', 'three', 'four five six'].map((t) => Array.from(Float32Array.from(vectorOf(t, 8)))),
    );
  });

  it('refuses a credential that is not ACCESS_KEY_ID:SECRET_ACCESS_KEY (502), without showing it', async () => {
    const odd = bedrockProvider(modelOf({ provider: 'bedrock', baseUrl: fake.url, credentialEnv: 'BEDROCK_ODD' }), {
      env: { BEDROCK_ODD: 'just-one-part' },
      http,
    });
    const e = await failure(odd.chat!({ model: 'm', messages: hi }));
    expect(e).toMatchObject({ code: 'upstream_misconfigured' });
    expect(e.message).not.toContain('just-one-part');
  });
});
