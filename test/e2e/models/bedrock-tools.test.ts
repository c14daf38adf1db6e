import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BedrockRuntimeClient,
  ConverseCommand,
  ConverseStreamCommand,
  InvokeModelCommand,
  type ContentBlock,
  type ConverseStreamOutput,
  type Message,
  type ToolConfiguration,
} from '@aws-sdk/client-bedrock-runtime';
import { DEFAULT_CATALOG } from '../../../core/models/catalog/catalog';
import { startFakeGemini, type FakeGemini } from '../../shared/fakes/gemini-upstream';
import { startInTemp, type Started } from '../shared/server';

const QUESTION = 'What is the weather in Paris?';
const GEMINI_KEY = 'AIzaE2eGeminiToolsKey0123456789';
const toolConfig: ToolConfiguration = {
  tools: [
    {
      toolSpec: {
        name: 'get_weather',
        description: 'The current weather in a city',
        inputSchema: { json: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
      },
    },
  ],
};
const ask: Message[] = [{ role: 'user', content: [{ text: QUESTION }] }];

/**
 * Tools through the official AWS SDK's Converse and ConverseStream (HTTP/2 to the started
 * platform, as bedrock-sdk.test.ts): local-chat calls the tool whose name matches the question,
 * the SDK's toolResult goes back, the answer comes from it. A model on a Gemini upstream (a fake
 * speaking Gemini's wire) shows a vendor's function calls passing through as toolUse blocks.
 */
describe('model gateway: group C tools through @aws-sdk/client-bedrock-runtime', () => {
  let p: Started;
  let client: BedrockRuntimeClient;
  let gemini: FakeGemini;
  beforeAll(async () => {
    gemini = await startFakeGemini();
    const file = join(tmpdir(), `catalog-tools-${process.pid}-${Date.now()}.json`);
    writeFileSync(
      file,
      JSON.stringify({
        models: [
          ...DEFAULT_CATALOG.models,
          {
            id: 'gem-tools',
            group: 'C',
            kind: 'chat',
            contextLength: 8192,
            upstream: { provider: 'gemini', baseUrl: gemini.url, model: 'gemini-2.5-flash', credentialEnv: 'E2E_GEMINI_TOOLS_KEY' },
          },
        ],
      }),
    );
    process.env.E2E_GEMINI_TOOLS_KEY = GEMINI_KEY;
    p = await startInTemp('all', { MODELS_CATALOG_FILE: file, MODELS_UPSTREAM_RETRIES: '0' }).finally(() => rmSync(file, { force: true }));
    client = new BedrockRuntimeClient({
      endpoint: `${p.url}/proxy/api/v1/bedrock`,
      region: 'us-east-1',
      token: { token: p.bootstrap!.values.api_key },
      authSchemePreference: ['httpBearerAuth'],
      maxAttempts: 1,
    });
  }, 60_000);
  afterAll(async () => {
    client?.destroy();
    await p?.stop();
    await gemini?.close();
  });

  /** ConverseStream's events, and the message they make: its text, its toolUse blocks (input parsed), its stop reason. */
  async function streamed(messages: Message[], modelId = 'local-chat', extra: Partial<ToolConfiguration> = {}) {
    const out = await client.send(new ConverseStreamCommand({ modelId, messages, toolConfig: { ...toolConfig, ...extra } }));
    const events: ConverseStreamOutput[] = [];
    for await (const e of out.stream!) events.push(e);
    const uses = new Map<number, { toolUseId: string; name: string; input: string }>();
    let text = '';
    for (const e of events) {
      const start = e.contentBlockStart?.start?.toolUse;
      if (start) uses.set(e.contentBlockStart!.contentBlockIndex!, { toolUseId: start.toolUseId!, name: start.name!, input: '' });
      if (e.contentBlockDelta?.delta?.toolUse)
        uses.get(e.contentBlockDelta.contentBlockIndex!)!.input += e.contentBlockDelta.delta.toolUse.input;
      text += e.contentBlockDelta?.delta?.text ?? '';
    }
    const stopReason = events.find((e) => e.messageStop)?.messageStop?.stopReason;
    return { events, text, stopReason, toolUses: [...uses.values()].map((u) => ({ ...u, input: JSON.parse(u.input) as unknown })) };
  }

  it('Converse: a toolUse block and stopReason tool_use, then the toolResult round trip answers from the result', async () => {
    const first = await client.send(new ConverseCommand({ modelId: 'local-chat', messages: ask, toolConfig }));
    expect(first.stopReason).toBe('tool_use');
    const use = first.output!.message!.content!.find((b) => b.toolUse)!.toolUse!;
    expect(use).toEqual({ toolUseId: expect.stringMatching(/^call_/), name: 'get_weather', input: { city: 'Paris' } });
    const second = await client.send(
      new ConverseCommand({
        modelId: 'local-chat',
        toolConfig,
        messages: [
          ...ask,
          first.output!.message!,
          { role: 'user', content: [{ toolResult: { toolUseId: use.toolUseId, content: [{ text: 'Sunny and 24 degrees in Paris.' }] } }] },
        ],
      }),
    );
    expect(second.stopReason).toBe('end_turn');
    expect(second.output!.message!.content![0].text).toContain('Sunny and 24 degrees in Paris.');
  });

  it('ConverseStream: contentBlockStart toolUse, its input in contentBlockDelta, contentBlockStop, stopReason tool_use; the round trip streams the answer', async () => {
    const first = await streamed(ask, 'local-chat', { toolChoice: { tool: { name: 'get_weather' } } });
    expect(first.stopReason).toBe('tool_use');
    expect(first.toolUses).toEqual([{ toolUseId: expect.any(String), name: 'get_weather', input: { city: 'Paris' } }]);
    const kinds = first.events.map((e) => Object.keys(e)[0]);
    expect(kinds.slice(-5)).toEqual(['contentBlockStart', 'contentBlockDelta', 'contentBlockStop', 'messageStop', 'metadata']);
    const { toolUseId, name, input } = first.toolUses[0];
    const assistant: ContentBlock[] = [{ toolUse: { toolUseId, name, input: input as never } }];
    const second = await streamed([
      ...ask,
      { role: 'assistant', content: assistant },
      { role: 'user', content: [{ toolResult: { toolUseId, content: [{ json: { forecast: 'Rain all day in Paris.' } }] } }] },
    ]);
    expect(second.stopReason).toBe('end_turn');
    expect(second.text).toContain('Rain all day in Paris.');
  });

  it("passes a Gemini upstream's function calls through as toolUse blocks and sends the toolResult up as a functionResponse", async () => {
    gemini.script({ toolCalls: [{ name: 'get_weather', args: { city: 'Paris' } }] }, { answer: 'It is sunny in Paris.' });
    const first = await streamed(ask, 'gem-tools', { toolChoice: { any: {} } });
    expect(first).toMatchObject({ stopReason: 'tool_use', toolUses: [{ name: 'get_weather', input: { city: 'Paris' } }] });
    expect(gemini.requests[0].json).toMatchObject({
      tools: [
        {
          functionDeclarations: [
            {
              name: 'get_weather',
              description: 'The current weather in a city',
              parametersJsonSchema: toolConfig.tools![0].toolSpec!.inputSchema!.json,
            },
          ],
        },
      ],
      toolConfig: { functionCallingConfig: { mode: 'ANY' } },
    });
    const { toolUseId } = first.toolUses[0];
    const r = await client.send(
      new ConverseCommand({
        modelId: 'gem-tools',
        toolConfig,
        messages: [
          ...ask,
          { role: 'assistant', content: [{ toolUse: { toolUseId, name: 'get_weather', input: { city: 'Paris' } } }] },
          { role: 'user', content: [{ toolResult: { toolUseId, content: [{ json: { sky: 'sunny' } }] } }] },
        ],
      }),
    );
    expect(r.output!.message!.content![0].text).toBe('It is sunny in Paris.');
    expect(gemini.requests[1].json.contents.slice(1)).toEqual([
      {
        role: 'model',
        parts: [
          {
            functionCall: { id: toolUseId, name: 'get_weather', args: { city: 'Paris' } },
            thoughtSignature: 'skip_thought_signature_validator',
          },
        ],
      },
      { role: 'user', parts: [{ functionResponse: { id: toolUseId, name: 'get_weather', response: { sky: 'sunny' } } }] },
    ]);
  });

  it('InvokeModel with a Nova body takes toolConfig too and answers toolUse blocks', async () => {
    const out = await client.send(
      new InvokeModelCommand({
        modelId: 'local-chat',
        contentType: 'application/json',
        accept: 'application/json',
        body: JSON.stringify({ schemaVersion: 'messages-v1', messages: ask, toolConfig, inferenceConfig: { max_new_tokens: 100 } }),
      }),
    );
    const answer = JSON.parse(Buffer.from(out.body).toString('utf8'));
    expect(answer).toMatchObject({
      stopReason: 'tool_use',
      output: { message: { role: 'assistant', content: [{ toolUse: { name: 'get_weather', input: { city: 'Paris' } } }] } },
    });
  });

  it('refuses a toolChoice naming no declared tool, and a toolResult in an assistant turn (ValidationException)', async () => {
    const bad = await client
      .send(
        new ConverseCommand({
          modelId: 'local-chat',
          messages: ask,
          toolConfig: { ...toolConfig, toolChoice: { tool: { name: 'nope' } } },
        }),
      )
      .catch((e: unknown) => e);
    expect(bad).toMatchObject({ name: 'ValidationException', message: expect.stringContaining("no tool named 'nope'") });
    const misplaced = await client
      .send(
        new ConverseCommand({
          modelId: 'local-chat',
          toolConfig,
          messages: [...ask, { role: 'assistant', content: [{ toolResult: { toolUseId: 't', content: [{ text: 'x' }] } }] }],
        }),
      )
      .catch((e: unknown) => e);
    expect(misplaced).toMatchObject({
      name: 'ValidationException',
      message: expect.stringContaining('toolResult blocks belong in user turns'),
    });
  });
});
