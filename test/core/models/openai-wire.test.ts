import type { ChatStream } from '../../../core/models/neutral';
import {
  chatCompletion,
  chatCompletionChunks,
  ChatCompletionRequest,
  InvalidParam,
  toChatMessages,
  toolsOf,
} from '../../../core/models/vendors/openai';
import { parseInput } from '../../../core/shared/validation';

const weather = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'The weather in a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    strict: true,
  },
};
const request = (more: object) =>
  parseInput(ChatCompletionRequest, { messages: [{ role: 'user', content: 'What is the weather in Paris?' }], ...more });
const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (err) {
    if (err instanceof InvalidParam) return { param: err.param, message: err.message };
    throw err;
  }
  throw new Error('expected an InvalidParam');
};

describe('the OpenAI chat wire read into the neutral chat call', () => {
  it('maps tools, each tool choice and each response format', () => {
    expect(toolsOf(request({ tools: [weather], tool_choice: 'auto', parallel_tool_calls: true }))).toEqual({
      tools: [{ name: 'get_weather', description: 'The weather in a city', parameters: weather.function.parameters, strict: true }],
      toolChoice: { type: 'auto' },
    });
    expect(toolsOf(request({ tools: [weather], tool_choice: 'required' })).toolChoice).toEqual({ type: 'required' });
    expect(toolsOf(request({ tools: [weather], tool_choice: 'none' })).toolChoice).toEqual({ type: 'none' });
    expect(toolsOf(request({ tools: [weather], tool_choice: { type: 'function', function: { name: 'get_weather' } } })).toolChoice).toEqual(
      { type: 'tool', name: 'get_weather' },
    );
    expect(toolsOf(request({ tools: [{ type: 'function', function: { name: 'ping' } }] })).tools).toEqual([{ name: 'ping' }]);
    expect(toolsOf(request({}))).toEqual({});
    expect(toolsOf(request({ response_format: { type: 'json_object' } }))).toEqual({ responseFormat: { type: 'json_object' } });
    expect(toolsOf(request({ response_format: { type: 'text' } }))).toEqual({ responseFormat: { type: 'text' } });
    const schema = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] };
    expect(
      toolsOf(
        request({
          response_format: { type: 'json_schema', json_schema: { name: 'answer', schema, strict: true, description: 'An answer' } },
        }),
      ),
    ).toEqual({
      responseFormat: { type: 'json_schema', name: 'answer', schema, strict: true, description: 'An answer' },
    });
  });

  it('maps an assistant turn that called tools (content null) and the tool results answering it', () => {
    const body = request({
      messages: [
        { role: 'developer', content: 'Be brief.' },
        { role: 'user', content: 'What is the weather in Paris?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: [{ type: 'text', text: '{"temperature":21}' }] },
      ],
    });
    expect(toChatMessages(body.messages)).toEqual([
      { role: 'system', text: 'Be brief.' },
      { role: 'user', text: 'What is the weather in Paris?' },
      { role: 'assistant', text: '', toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' }] },
      { role: 'tool', text: '{"temperature":21}', toolCallId: 'call_1', toolName: 'get_weather' },
    ]);
  });

  it('refuses what OpenAI refuses, naming the field: tool results without a call, bad tool choices, duplicates, legacy functions', () => {
    expect(refusal(() => toChatMessages(request({ messages: [{ role: 'tool', content: 'x' }] }).messages))).toMatchObject({
      param: 'messages.[0].tool_call_id',
    });
    expect(
      refusal(() =>
        toChatMessages(
          request({
            messages: [
              { role: 'user', content: 'hi' },
              { role: 'tool', tool_call_id: 'call_9', content: 'x' },
            ],
          }).messages,
        ),
      ),
    ).toMatchObject({ param: 'messages.[1].tool_call_id', message: expect.stringContaining('call_9') });
    expect(
      refusal(() =>
        toChatMessages(
          request({
            messages: [
              { role: 'user', content: 'hi', tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }] },
            ],
          }).messages,
        ),
      ),
    ).toMatchObject({ param: 'messages.[0].tool_calls' });
    expect(refusal(() => toolsOf(request({ tool_choice: 'required' })))).toMatchObject({ param: 'tool_choice' });
    expect(
      refusal(() => toolsOf(request({ tools: [weather], tool_choice: { type: 'function', function: { name: 'nope' } } }))),
    ).toMatchObject({ param: 'tool_choice' });
    expect(refusal(() => toolsOf(request({ tools: [weather, weather] })))).toMatchObject({ param: 'tools.[1].function.name' });
    expect(refusal(() => toolsOf(request({ functions: [weather.function] })))).toMatchObject({
      param: 'functions',
      message: expect.stringContaining('use tools'),
    });
    expect(refusal(() => toChatMessages(request({ messages: [{ role: 'function', name: 'f', content: '1' }] }).messages))).toMatchObject({
      param: 'messages.[0]',
    });
  });

  it('validates tool names, the number of tools and the parameters schema with the request', () => {
    const bad = (tools: unknown) => ChatCompletionRequest.safeParse({ messages: [{ role: 'user', content: 'hi' }], tools }).success;
    expect(bad([{ type: 'function', function: { name: 'get weather' } }])).toBe(false);
    expect(bad([{ type: 'function', function: { name: 'x'.repeat(65) } }])).toBe(false);
    expect(bad([{ type: 'function', function: { name: 'f', parameters: 'an object' } }])).toBe(false);
    expect(bad([{ type: 'function', function: { name: 'f', parameters: [] } }])).toBe(false);
    expect(bad([{ type: 'code_interpreter' }])).toBe(false);
    expect(bad(Array.from({ length: 129 }, (_, i) => ({ type: 'function', function: { name: `f${i}` } })))).toBe(false);
    expect(bad(Array.from({ length: 128 }, (_, i) => ({ type: 'function', function: { name: `f${i}` } })))).toBe(true);
  });
});

describe('the neutral answer written in the OpenAI chat wire', () => {
  const meta = { id: 'chatcmpl-1', created: 1_700_000_000, model: 'local-chat' };
  const usage = { promptTokens: 10, completionTokens: 5 };
  const call = { id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' };
  const streamOf = (pieces: string[], done: Awaited<ChatStream['done']>): ChatStream => ({
    pieces: (async function* gen() {
      yield* pieces;
    })(),
    done: Promise.resolve(done),
  });

  it('a completion that calls a tool has content null, tool_calls and finish_reason tool_calls', () => {
    expect(chatCompletion(meta, { text: '', finishReason: 'tool_calls', usage, toolCalls: [call] })).toEqual({
      ...meta,
      object: 'chat.completion',
      choices: [
        {
          index: 0,
          logprobs: null,
          finish_reason: 'tool_calls',
          message: {
            role: 'assistant',
            content: null,
            refusal: null,
            tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
          },
        },
      ],
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    });
    expect(chatCompletion(meta, { text: 'Sunny.', finishReason: 'stop', usage }).choices[0].message).toEqual({
      role: 'assistant',
      content: 'Sunny.',
      refusal: null,
    });
  });

  it('streams text deltas, then each tool call (named, then its arguments), the finish chunk and usage', async () => {
    const chunks = [];
    for await (const c of chatCompletionChunks(
      meta,
      streamOf(['Let me ', 'check.'], { finishReason: 'tool_calls', usage, toolCalls: [call] }),
      true,
    ))
      chunks.push(c);
    expect(chunks.map((c) => c.choices[0]?.delta ?? 'usage')).toEqual([
      { role: 'assistant', content: '' },
      { content: 'Let me ' },
      { content: 'check.' },
      { tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '' } }] },
      { tool_calls: [{ index: 0, function: { arguments: '{"city":"Paris"}' } }] },
      {},
      'usage',
    ]);
    expect(chunks.map((c) => (c.choices.length ? c.choices[0].finish_reason : 'usage'))).toEqual([
      null,
      null,
      null,
      null,
      null,
      'tool_calls',
      'usage',
    ]);
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } });
  });
});
