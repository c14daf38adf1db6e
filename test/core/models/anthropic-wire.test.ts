import { parseInput } from '../../../core/shared/validation';
import { ValidationFailed } from '../../../core/shared/errors';
import {
  AnthropicRequest,
  CountTokensRequest,
  MessagesRequest,
  anthropicChat,
  anthropicCountBody,
  anthropicToChat,
  anthropicMessage,
  anthropicStreamEvents,
} from '../../../core/models/vendors/anthropic';
import type { ChatDone, ChatMessage } from '../../../core/models/neutral';
import { promptTexts } from '../../../core/models/prompt/prompt-texts';

/** Anthropic's Messages wire read into the neutral chat call and written back, tools included. */
const weather = {
  name: 'get_weather',
  description: 'The weather',
  input_schema: { type: 'object', properties: { city: { type: 'string' } } },
};
const base = { model: 'local-chat', max_tokens: 100 };
const read = (body: object) => parseInput(MessagesRequest, { ...base, ...body });
const issues = (schema: typeof MessagesRequest | typeof AnthropicRequest, body: object) => {
  try {
    parseInput(schema, body);
    return [];
  } catch (err) {
    return (err as ValidationFailed).issues.map((i) => `${i.loc.join('.')}: ${i.msg}`);
  }
};

describe('Anthropic requests as the neutral chat call', () => {
  it('maps tools, each tool_choice, the system blocks and the sampling fields', () => {
    const chat = anthropicChat(
      read({
        system: [
          { type: 'text', text: 'Be brief.' },
          { type: 'text', text: 'Cite.' },
        ],
        messages: [{ role: 'user', content: 'Weather in Paris?' }],
        tools: [weather],
        tool_choice: { type: 'any' },
        temperature: 0.3,
        top_p: 0.9,
        top_k: 5,
        stop_sequences: ['END'],
        metadata: { user_id: 'u1' },
      }),
    );
    expect(chat).toEqual({
      messages: [
        { role: 'system', text: 'Be brief.\nCite.' },
        { role: 'user', text: 'Weather in Paris?' },
      ],
      maxTokens: 100,
      temperature: 0.3,
      topP: 0.9,
      stop: ['END'],
      tools: [{ name: 'get_weather', description: 'The weather', parameters: weather.input_schema }],
      toolChoice: { type: 'required' },
    });
    const choice = (tool_choice: object) =>
      anthropicChat(read({ messages: [{ role: 'user', content: 'x' }], tools: [weather], tool_choice })).toolChoice;
    expect(choice({ type: 'auto', disable_parallel_tool_use: true })).toEqual({ type: 'auto' });
    expect(choice({ type: 'none' })).toEqual({ type: 'none' });
    expect(choice({ type: 'tool', name: 'get_weather' })).toEqual({ type: 'tool', name: 'get_weather' });
  });

  it("reads tool_use as the assistant's tool calls and tool_result blocks as tool messages before the turn's text", () => {
    const messages = anthropicToChat(
      read({
        messages: [
          { role: 'user', content: 'Weather in Paris and Rome?' },
          {
            role: 'assistant',
            content: [
              { type: 'text', text: 'Checking.' },
              { type: 'tool_use', id: 'toolu_a', name: 'get_weather', input: { city: 'Paris' } },
              { type: 'tool_use', id: 'toolu_b', name: 'get_weather', input: { city: 'Rome' } },
            ],
          },
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 'toolu_a', content: 'Sunny' },
              { type: 'tool_result', tool_use_id: 'toolu_b', content: [{ type: 'text', text: 'No such city' }], is_error: true },
              { type: 'text', text: 'And tomorrow?' },
            ],
          },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_c' }] },
        ],
      }),
    );
    expect(messages).toEqual([
      { role: 'user', text: 'Weather in Paris and Rome?' },
      {
        role: 'assistant',
        text: 'Checking.',
        toolCalls: [
          { id: 'toolu_a', name: 'get_weather', arguments: '{"city":"Paris"}' },
          { id: 'toolu_b', name: 'get_weather', arguments: '{"city":"Rome"}' },
        ],
      },
      { role: 'tool', toolCallId: 'toolu_a', text: 'Sunny' },
      { role: 'tool', toolCallId: 'toolu_b', text: 'Error: No such city' },
      { role: 'user', text: 'And tomorrow?' },
      { role: 'tool', toolCallId: 'toolu_c', text: '' },
    ]);
  });

  it('refuses tool blocks in the wrong turn, a tool_choice naming no tool, server tools and bad names, naming the field', () => {
    expect(
      issues(MessagesRequest, { ...base, messages: [{ role: 'assistant', content: [{ type: 'tool_result', tool_use_id: 'x' }] }] }),
    ).toEqual(['messages.0.content.0: tool_result blocks belong to user messages']);
    expect(
      issues(MessagesRequest, {
        ...base,
        messages: [{ role: 'user', content: 'x' }],
        tools: [weather],
        tool_choice: { type: 'tool', name: 'nope' },
      }),
    ).toEqual(['tool_choice.name: No tool named nope in tools']);
    expect(
      issues(MessagesRequest, {
        ...base,
        messages: [{ role: 'user', content: 'x' }],
        tools: [{ type: 'web_search_20250305', name: 'web_search' }],
      })[0],
    ).toMatch(/^tools\.0\./);
    expect(
      issues(MessagesRequest, { ...base, messages: [{ role: 'user', content: 'x' }], tools: [{ ...weather, name: 'get weather' }] })[0],
    ).toMatch(/^tools\.0\.name: String should match pattern/);
    expect(issues(AnthropicRequest, { max_tokens: 5, messages: [{ role: 'user', content: 'x' }] })).toEqual([
      'anthropic_version: Field required',
    ]);
    expect(issues(CountTokensRequest as typeof MessagesRequest, { model: 'm', messages: [{ role: 'user', content: 'x' }] })).toEqual([]);
  });

  it('writes a neutral prompt as a count_tokens body that reads back as the same messages', () => {
    const messages: ChatMessage[] = [
      { role: 'system', text: 'Be brief.' },
      { role: 'user', text: 'Weather?' },
      { role: 'assistant', text: '', toolCalls: [{ id: 'toolu_1', name: 'get_weather', arguments: '{"city":"Paris"}' }] },
      { role: 'tool', toolCallId: 'toolu_1', text: 'Sunny' },
      { role: 'assistant', text: 'Sunny.' },
    ];
    const body = parseInput(
      CountTokensRequest,
      anthropicCountBody('local-chat', messages, [{ name: 'get_weather', parameters: weather.input_schema }]),
    );
    expect(anthropicToChat(body)).toEqual(messages);
    expect(body.tools).toEqual([{ name: 'get_weather', input_schema: weather.input_schema }]);
  });

  it("counts the texts, the calls' arguments and the tools' definitions", () => {
    const texts = promptTexts(
      [{ role: 'assistant', text: 'ok', toolCalls: [{ id: 'a', name: 'f', arguments: '{"x":1}' }] }],
      [{ name: 'f', parameters: { type: 'object' } }],
    );
    expect(texts).toEqual(['ok', 'f {"x":1}', '{"name":"f","parameters":{"type":"object"}}']);
  });
});

describe('Anthropic answers from a neutral one', () => {
  const meta = { id: 'msg_1', model: 'local-chat' };
  const call = { id: 'call_9', name: 'get_weather', arguments: '{"city":"Paris"}' };
  const usage = { promptTokens: 12, completionTokens: 4 };
  const streamOf = (pieces: string[], done: ChatDone) => ({
    pieces: (async function* () {
      yield* pieces;
    })(),
    done: Promise.resolve(done),
  });
  const events = async (s: ReturnType<typeof streamOf>) => {
    const out: any[] = [];
    for await (const e of anthropicStreamEvents(meta, s)) out.push(e);
    return out;
  };

  it('a message: tool_use blocks after the text (none when empty), toolu_ ids, input as an object, stop_reason tool_use', () => {
    const m = anthropicMessage(meta, {
      text: '',
      finishReason: 'tool_calls',
      usage,
      toolCalls: [call, { id: 'toolu_x', name: 'f', arguments: 'not json' }],
    });
    expect(m.content).toEqual([
      { type: 'tool_use', id: 'toolu_call_9', name: 'get_weather', input: { city: 'Paris' }, caller: { type: 'direct' } },
      { type: 'tool_use', id: 'toolu_x', name: 'f', input: {}, caller: { type: 'direct' } },
    ]);
    expect(m).toMatchObject({ stop_reason: 'tool_use', usage: { input_tokens: 12, output_tokens: 4 } });
    expect(anthropicMessage(meta, { text: '', finishReason: 'stop', usage }).content).toEqual([{ type: 'text', text: '' }]);
  });

  it('stream events: the text block, then each tool_use block with its input_json_delta, then message_delta', async () => {
    const e = await events(streamOf(['Let me ', 'check.'], { finishReason: 'tool_calls', usage, toolCalls: [call] }));
    expect(e.map((x) => `${x.type}${x.index === undefined ? '' : `:${x.index}`}`)).toEqual([
      'message_start',
      'content_block_start:0',
      'content_block_delta:0',
      'content_block_delta:0',
      'content_block_stop:0',
      'content_block_start:1',
      'content_block_delta:1',
      'content_block_stop:1',
      'message_delta',
      'message_stop',
    ]);
    expect(e[5].content_block).toEqual({
      type: 'tool_use',
      id: 'toolu_call_9',
      name: 'get_weather',
      input: {},
      caller: { type: 'direct' },
    });
    expect(e[6].delta).toEqual({ type: 'input_json_delta', partial_json: '{"city":"Paris"}' });
    expect(e[8]).toEqual({
      type: 'message_delta',
      delta: { stop_reason: 'tool_use', stop_sequence: null },
      usage: { input_tokens: 12, output_tokens: 4 },
    });
  });

  it('stream events: a tool call alone starts at index 0; an empty answer still has its text block', async () => {
    const alone = await events(streamOf([], { finishReason: 'tool_calls', usage, toolCalls: [call] }));
    expect(alone.filter((x) => x.type === 'content_block_start').map((x) => [x.index, x.content_block.type])).toEqual([[0, 'tool_use']]);
    const empty = await events(streamOf([], { finishReason: 'stop', usage }));
    expect(empty.map((x) => x.type)).toEqual([
      'message_start',
      'content_block_start',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
  });
});
