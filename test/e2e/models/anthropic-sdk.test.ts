import Anthropic from '@anthropic-ai/sdk';
import { startInTemp, type Started } from '../shared/server';
import { ANSWER, QUESTION, SOURCES } from '../../rest/models/fixture';
import { newKey } from './new-key';

const failureOf = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected a failure');
    },
    (e: unknown) => e,
  );

/**
 * Anthropic's own SDK against a started platform, only its base URL and key changed: messages
 * (whole and streamed), token counting, the model list, a tool round trip with `local-chat`, and
 * the errors as the SDK raises them.
 */
describe('model gateway: the Anthropic SDK at /proxy/api/v1/anthropic', () => {
  let p: Started;
  let key: string;
  let client: Anthropic;
  const clientFor = (opts: ConstructorParameters<typeof Anthropic>[0]) =>
    new Anthropic({ baseURL: `${p.url}/proxy/api/v1/anthropic`, maxRetries: 0, ...opts });
  beforeAll(async () => {
    p = await startInTemp('all');
    key = p.bootstrap!.values.api_key!;
    client = clientFor({ apiKey: key });
  }, 60_000);
  afterAll(() => p?.stop());

  const asked = { model: 'local-chat', max_tokens: 300, system: SOURCES, messages: [{ role: 'user' as const, content: QUESTION }] };
  const weather: Anthropic.Tool = {
    name: 'get_weather',
    description: 'The current weather in a city',
    input_schema: { type: 'object', properties: { city: { type: 'string', description: 'The city' } }, required: ['city'] },
  };
  const toolQuestion = { role: 'user' as const, content: 'What is the weather in Paris?' };

  it('messages.create answers from the context, with usage, stop reason and a request id', async () => {
    const msg = await client.messages.create(asked);
    expect(msg).toMatchObject({
      type: 'message',
      role: 'assistant',
      model: 'local-chat',
      stop_reason: 'end_turn',
      content: [{ type: 'text' }],
    });
    expect(msg.id).toMatch(/^msg_/);
    const [block] = msg.content;
    expect(block?.type === 'text' && block.text).toContain(ANSWER);
    expect(msg.usage.input_tokens).toBeGreaterThan(10);
    expect(msg.usage.output_tokens).toBeGreaterThan(3);
    expect(msg._request_id).toBeTruthy();
    const cut = await client.messages.create({ ...asked, max_tokens: 3 });
    expect(cut.stop_reason).toBe('max_tokens');
  });

  it('messages.stream streams the same text; its final message has the stop reason and both token counts', async () => {
    const whole = await client.messages.create(asked);
    const stream = client.messages.stream({ ...asked, metadata: { user_id: 'streamer' } });
    let text = '';
    stream.on('text', (t) => (text += t));
    const final = await stream.finalMessage();
    const wholeText = whole.content[0]?.type === 'text' ? whole.content[0].text : '';
    expect(text).toBe(wholeText);
    expect(final.content).toEqual([{ type: 'text', text: wholeText }]);
    expect(final.stop_reason).toBe('end_turn');
    expect(final.usage).toMatchObject(whole.usage);
  });

  it('also takes the key as a bearer token (authToken)', async () => {
    const bearer = clientFor({ authToken: key, apiKey: null });
    expect((await bearer.messages.create(asked)).content[0]).toMatchObject({ type: 'text' });
  });

  it('messages.countTokens counts what messages.create reports as input tokens; tools count too', async () => {
    const { max_tokens: _m, ...prompt } = asked;
    const counted = await client.messages.countTokens(prompt);
    const created = await client.messages.create(asked);
    expect(counted).toEqual({ input_tokens: created.usage.input_tokens });
    const withTools = await client.messages.countTokens({ ...prompt, tools: [weather] });
    expect(withTools.input_tokens).toBeGreaterThan(counted.input_tokens + 10);
  });

  it('models.list pages through the chat models the key may use; models.retrieve reads one', async () => {
    const all: string[] = [];
    for await (const m of client.models.list()) all.push(m.id);
    expect(all).toContain('local-chat');
    expect(all).not.toContain('local-embed');
    const first = await client.models.list({ limit: 1 });
    expect(first.data).toHaveLength(1);
    expect(first.has_more).toBe(all.length > 1);
    const m = await client.models.retrieve('local-chat');
    expect(m).toMatchObject({ type: 'model', id: 'local-chat', display_name: 'local-chat', max_input_tokens: 8192 });
    expect(Number.isNaN(Date.parse(m.created_at))).toBe(false);
    expect(await failureOf(client.models.retrieve('local-embed'))).toBeInstanceOf(Anthropic.NotFoundError);
  });

  it('a tool round trip: local-chat calls get_weather, then answers from the tool_result sent back', async () => {
    const call = await client.messages.create({ ...asked, system: undefined, messages: [toolQuestion], tools: [weather] });
    expect(call.stop_reason).toBe('tool_use');
    const use = call.content.find((b) => b.type === 'tool_use');
    expect(use).toMatchObject({ type: 'tool_use', name: 'get_weather', input: { city: 'Paris' } });
    expect(use!.type === 'tool_use' && use!.id).toMatch(/^toolu_/);
    const answer = await client.messages.create({
      ...asked,
      system: undefined,
      tools: [weather],
      messages: [
        toolQuestion,
        { role: 'assistant', content: call.content },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: use!.type === 'tool_use' ? use!.id : '', content: '{"temperature_c": 18, "sky": "sunny"}' },
          ],
        },
      ],
    });
    expect(answer.stop_reason).toBe('end_turn');
    const [text] = answer.content;
    expect(text?.type === 'text' && text.text).toContain('get_weather returned: {"temperature_c": 18, "sky": "sunny"}');
  });

  it('streams a tool call as a tool_use block whose input the SDK assembles from input_json_delta', async () => {
    const stream = client.messages.stream({
      ...asked,
      system: undefined,
      messages: [toolQuestion],
      tools: [weather],
      tool_choice: { type: 'any' },
    });
    const deltas: string[] = [];
    stream.on('inputJson', (partial) => deltas.push(partial));
    const final = await stream.finalMessage();
    expect(final.stop_reason).toBe('tool_use');
    expect(final.content).toEqual([expect.objectContaining({ type: 'tool_use', name: 'get_weather', input: { city: 'Paris' } })]);
    expect(JSON.parse(deltas.join(''))).toEqual({ city: 'Paris' });
    const none = await client.messages.create({
      ...asked,
      system: undefined,
      messages: [toolQuestion],
      tools: [weather],
      tool_choice: { type: 'none' },
    });
    expect(none.stop_reason).toBe('end_turn');
  });

  it("raises the SDK's errors: 401 without a key, 404 for an unknown model, 403 for a model the key may not use, 400 for a bad body", async () => {
    const noKey = await failureOf(clientFor({ apiKey: 'not-a-key' }).messages.create(asked));
    expect(noKey).toBeInstanceOf(Anthropic.AuthenticationError);
    expect((noKey as InstanceType<typeof Anthropic.AuthenticationError>).error).toMatchObject({
      type: 'error',
      error: { type: 'authentication_error' },
    });
    expect((noKey as InstanceType<typeof Anthropic.AuthenticationError>).requestID).toBeTruthy();
    const unknown = await failureOf(client.messages.create({ ...asked, model: 'no-such-model' }));
    expect(unknown).toBeInstanceOf(Anthropic.NotFoundError);
    expect((unknown as InstanceType<typeof Anthropic.NotFoundError>).error).toMatchObject({ error: { type: 'not_found_error' } });
    const limited = clientFor({ apiKey: await newKey(p, 'embed-only', '--models', 'local-embed') });
    expect(await failureOf(limited.messages.create(asked))).toBeInstanceOf(Anthropic.PermissionDeniedError);
    const bad = await failureOf(
      client.messages.create({ ...asked, max_tokens: undefined } as unknown as Anthropic.MessageCreateParamsNonStreaming),
    );
    expect(bad).toBeInstanceOf(Anthropic.BadRequestError);
    expect((bad as Error).message).toMatch(/max_tokens/);
    const wrongTool = await failureOf(client.messages.create({ ...asked, tools: [weather], tool_choice: { type: 'tool', name: 'nope' } }));
    expect((wrongTool as Error).message).toMatch(/tool_choice\.name: No tool named nope/);
  });
});
