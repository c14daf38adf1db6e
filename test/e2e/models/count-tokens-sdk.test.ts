// @google/genai sends through the undici dispatcher it finds on the global object (see test/rest/models/gemini.test.ts).
import 'undici';
import Anthropic from '@anthropic-ai/sdk';
import {
  BedrockRuntimeClient,
  CountTokensCommand,
  InvokeModelCommand,
  InvokeModelWithResponseStreamCommand,
} from '@aws-sdk/client-bedrock-runtime';
import { startInTemp, type Started } from '../shared/server';
import { QUESTION, SOURCES } from '../../rest/models/fixture';

// @google/genai's types are ESM-only; the import resolves to its CommonJS build at run time.
const loadGenai = () => import('@google/genai');
const failureOf = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected a failure');
    },
    (e: any) => e,
  );
const json = (b: Uint8Array | undefined) => JSON.parse(Buffer.from(b!).toString('utf8'));
const bytes = (o: unknown) => new TextEncoder().encode(JSON.stringify(o));

/**
 * Token counting through each vendor's SDK (Anthropic count_tokens, Gemini countTokens, Bedrock
 * CountTokens): one prompt counts the same everywhere, with the gateway's tokenizer. Then what
 * else InvokeModel now takes through the AWS SDK: Titan and Cohere embedding bodies for an
 * embedding model, and tools on an Anthropic body (whole and streamed).
 */
describe("model gateway: token counting and InvokeModel bodies through the vendors' SDKs", () => {
  let p: Started;
  let key: string;
  let bedrock: BedrockRuntimeClient;
  beforeAll(async () => {
    p = await startInTemp('all');
    key = p.bootstrap!.values.api_key!;
    bedrock = new BedrockRuntimeClient({
      endpoint: `${p.url}/proxy/api/v1/bedrock`,
      region: 'us-east-1',
      token: { token: key },
      authSchemePreference: ['httpBearerAuth'],
      maxAttempts: 1,
    });
  }, 60_000);
  afterAll(async () => {
    bedrock?.destroy();
    await p?.stop();
  });

  const weather = {
    name: 'get_weather',
    description: 'The current weather in a city',
    input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  };
  const anthropicBody = (extra: Record<string, unknown> = {}) => ({
    anthropic_version: 'bedrock-2023-05-31',
    max_tokens: 200,
    messages: [{ role: 'user', content: 'What is the weather in Paris?' }],
    tools: [weather],
    ...extra,
  });

  it('counts one prompt the same through Anthropic, Gemini and Bedrock (Converse and InvokeModel inputs)', async () => {
    const anthropic = new Anthropic({ baseURL: `${p.url}/proxy/api/v1/anthropic`, apiKey: key, maxRetries: 0 });
    const { input_tokens } = await anthropic.messages.countTokens({
      model: 'local-chat',
      system: SOURCES,
      messages: [{ role: 'user', content: QUESTION }],
    });
    expect(input_tokens).toBeGreaterThan(10);

    const genai = await loadGenai();
    const ai = new genai.GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: `${p.url}/proxy/api/v1/gemini` } });
    const userOnly = await ai.models.countTokens({ model: 'local-chat', contents: QUESTION });
    const anthropicUserOnly = await anthropic.messages.countTokens({
      model: 'local-chat',
      messages: [{ role: 'user', content: QUESTION }],
    });
    expect(userOnly.totalTokens).toBe(anthropicUserOnly.input_tokens);
    // The SDK sends no system instruction in Gemini API mode: the whole request says it.
    const whole = await fetch(`${p.url}/proxy/api/v1/gemini/v1beta/models/local-chat:countTokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': key },
      body: JSON.stringify({
        generateContentRequest: {
          model: 'models/local-chat',
          systemInstruction: { parts: [{ text: SOURCES }] },
          contents: [{ role: 'user', parts: [{ text: QUESTION }] }],
        },
      }),
    });
    expect(await whole.json()).toEqual({ totalTokens: input_tokens });

    const converse = await bedrock.send(
      new CountTokensCommand({
        modelId: 'local-chat',
        input: { converse: { system: [{ text: SOURCES }], messages: [{ role: 'user', content: [{ text: QUESTION }] }] } },
      }),
    );
    expect(converse.inputTokens).toBe(input_tokens);
    const invoke = await bedrock.send(
      new CountTokensCommand({
        modelId: 'local-chat',
        input: {
          invokeModel: {
            body: bytes({
              anthropic_version: 'bedrock-2023-05-31',
              max_tokens: 10,
              system: SOURCES,
              messages: [{ role: 'user', content: QUESTION }],
            }),
          },
        },
      }),
    );
    expect(invoke.inputTokens).toBe(input_tokens);
    const withTools = await bedrock.send(
      new CountTokensCommand({ modelId: 'local-chat', input: { invokeModel: { body: bytes(anthropicBody()) } } }),
    );
    expect(withTools.inputTokens).toBeGreaterThan(20);
  });

  it("refuses what it cannot count in each vendor's format", async () => {
    const genai = await loadGenai();
    const ai = new genai.GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: `${p.url}/proxy/api/v1/gemini` } });
    expect(await failureOf(ai.models.countTokens({ model: 'no-such-model', contents: 'hi' }))).toMatchObject({ status: 404 });
    const bad = await failureOf(
      bedrock.send(new CountTokensCommand({ modelId: 'local-chat', input: { invokeModel: { body: bytes({ prompt: '' }) } } })),
    );
    expect(bad.name).toBe('ValidationException');
    expect(bad.message).toMatch(/prompt/);
    const unknown = await failureOf(
      bedrock.send(
        new CountTokensCommand({
          modelId: 'no-such-model',
          input: { converse: { messages: [{ role: 'user', content: [{ text: 'hi' }] }] } },
        }),
      ),
    );
    expect(unknown.name).toBe('ResourceNotFoundException');
  });

  it('InvokeModel takes a Titan embedding body for an embedding model: a unit vector, its token count, and embeddingsByType', async () => {
    const r = await bedrock.send(
      new InvokeModelCommand({
        modelId: 'local-embed',
        contentType: 'application/json',
        body: bytes({ inputText: 'Glaciers retreat as the climate warms.' }),
      }),
    );
    const out = json(r.body);
    expect(out.embedding).toHaveLength(1024);
    expect(Math.hypot(...out.embedding)).toBeCloseTo(1, 5);
    expect(out.inputTextTokenCount).toBeGreaterThan(3);
    const typed = json(
      (
        await bedrock.send(
          new InvokeModelCommand({
            modelId: 'local-embed',
            body: bytes({
              inputText: 'Glaciers retreat as the climate warms.',
              dimensions: 1024,
              normalize: true,
              embeddingTypes: ['float', 'binary'],
            }),
          }),
        )
      ).body,
    );
    expect(typed.embedding).toEqual(out.embedding);
    expect(typed.embeddingsByType.float).toEqual(out.embedding);
    expect(typed.embeddingsByType.binary).toEqual(out.embedding.map((x: number) => (x > 0 ? 1 : 0)));
    const wrong = await failureOf(
      bedrock.send(new InvokeModelCommand({ modelId: 'local-embed', body: bytes({ inputText: 'x', dimensions: 256 }) })),
    );
    expect(wrong.name).toBe('ValidationException');
    expect(wrong.message).toMatch(/1024-dimensional/);
  });

  it('InvokeModel takes a Cohere embedding body: one vector per text, in order', async () => {
    const texts = ['Glaciers retreat as the climate warms.', 'Sourdough bread needs a starter.'];
    const out = json(
      (await bedrock.send(new InvokeModelCommand({ modelId: 'local-embed', body: bytes({ texts, input_type: 'search_document' }) }))).body,
    );
    expect(out).toMatchObject({ response_type: 'embeddings_floats', texts, id: expect.any(String) });
    expect(out.embeddings).toHaveLength(2);
    expect(out.embeddings[0]).toHaveLength(1024);
    expect(out.embeddings[0]).not.toEqual(out.embeddings[1]);
    const none = await failureOf(bedrock.send(new InvokeModelCommand({ modelId: 'local-embed', body: bytes({ prompt: 'hi' }) })));
    expect(none.name).toBe('ValidationException');
    expect(none.message).toMatch(/Titan body .* Cohere body/);
  });

  it('InvokeModel with an Anthropic body carries tools: a tool_use answer, then one from the tool_result', async () => {
    const call = json((await bedrock.send(new InvokeModelCommand({ modelId: 'local-chat', body: bytes(anthropicBody()) }))).body);
    expect(call.stop_reason).toBe('tool_use');
    const use = call.content.find((b: any) => b.type === 'tool_use');
    expect(use).toMatchObject({ name: 'get_weather', input: { city: 'Paris' }, id: expect.stringMatching(/^toolu_/) });
    const answer = json(
      (
        await bedrock.send(
          new InvokeModelCommand({
            modelId: 'local-chat',
            body: bytes(
              anthropicBody({
                messages: [
                  { role: 'user', content: 'What is the weather in Paris?' },
                  { role: 'assistant', content: call.content },
                  {
                    role: 'user',
                    content: [{ type: 'tool_result', tool_use_id: use.id, content: [{ type: 'text', text: 'Sunny, 18 degrees.' }] }],
                  },
                ],
              }),
            ),
          }),
        )
      ).body,
    );
    expect(answer.stop_reason).toBe('end_turn');
    expect(answer.content[0].text).toContain('18');
  });

  it('InvokeModelWithResponseStream streams the tool call as Anthropic events in chunks', async () => {
    const r = await bedrock.send(new InvokeModelWithResponseStreamCommand({ modelId: 'local-chat', body: bytes(anthropicBody()) }));
    const events: any[] = [];
    for await (const e of r.body!) if (e.chunk) events.push(json(e.chunk.bytes));
    const start = events.find((e) => e.type === 'content_block_start' && e.content_block.type === 'tool_use');
    expect(start.content_block).toMatchObject({ name: 'get_weather', input: {} });
    const partial = events
      .filter((e) => e.type === 'content_block_delta' && e.index === start.index)
      .map((e) => e.delta.partial_json)
      .join('');
    expect(JSON.parse(partial)).toEqual({ city: 'Paris' });
    expect(events.find((e) => e.type === 'message_delta').delta.stop_reason).toBe('tool_use');
    expect(events.at(-1)).toMatchObject({
      type: 'message_stop',
      'amazon-bedrock-invocationMetrics': { inputTokenCount: expect.any(Number) },
    });
  });
});
