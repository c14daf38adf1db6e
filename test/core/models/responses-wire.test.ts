import type { ChatDone, ChatStream } from '../../../core/models/neutral';
import {
  responseObject,
  responseOutput,
  responseStreamEvents,
  type ResponseEvent,
  type ResponseMeta,
  ResponsesRequest,
  responsesToChat,
} from '../../../core/models/vendors/openai';
import { UpstreamFailed } from '../../../core/shared/errors';

const PNG = 'data:image/png;base64,iVBORw0KGgo=';
const read = (body: object) => ResponsesRequest.parse({ model: 'm', ...body });
const issues = (body: object) => {
  const r = ResponsesRequest.safeParse({ model: 'm', ...body });
  return r.success ? [] : r.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message }));
};

/** OpenAI's Responses wire format to and from the provider-neutral chat call. */
describe('Responses wire: requests', () => {
  it('reads a string input as the user message, after the instructions as the system message', () => {
    expect(responsesToChat(read({ input: 'hi', instructions: 'Be brief.' }))).toEqual({
      messages: [
        { role: 'system', text: 'Be brief.' },
        { role: 'user', text: 'hi' },
      ],
      stream: false,
    });
  });

  it('reads items: developer is system, images are attachments, function calls join the assistant turn, outputs name their tool', () => {
    const chat = responsesToChat(
      read({
        input: [
          { role: 'developer', content: 'Rules.' },
          {
            type: 'message',
            role: 'user',
            content: [
              { type: 'input_text', text: 'Weather and time?' },
              { type: 'input_image', image_url: PNG },
            ],
          },
          { role: 'assistant', content: [{ type: 'output_text', text: 'Let me look.' }] },
          { type: 'function_call', call_id: 'c1', name: 'get_weather', arguments: '{"city":"Paris"}', id: 'fc_1', status: 'completed' },
          { type: 'function_call', call_id: 'c2', name: 'get_time', arguments: '{}' },
          { type: 'function_call_output', call_id: 'c1', output: 'sunny' },
          { type: 'function_call_output', call_id: 'c2', output: [{ type: 'input_text', text: 'noon' }] },
        ],
        stream: true,
      }),
    );
    expect(chat.messages).toEqual([
      { role: 'system', text: 'Rules.' },
      { role: 'user', text: 'Weather and time?', attachments: [{ kind: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=' }] },
      {
        role: 'assistant',
        text: 'Let me look.',
        toolCalls: [
          { id: 'c1', name: 'get_weather', arguments: '{"city":"Paris"}' },
          { id: 'c2', name: 'get_time', arguments: '{}' },
        ],
      },
      { role: 'tool', text: 'sunny', toolCallId: 'c1', toolName: 'get_weather' },
      { role: 'tool', text: 'noon', toolCallId: 'c2', toolName: 'get_time' },
    ]);
    expect(chat.stream).toBe(true);
  });

  it('reads tools, tool_choice, text.format and the sampling settings', () => {
    const parameters = { type: 'object', properties: { city: { type: 'string' } } };
    const schema = { type: 'object', properties: { a: { type: 'string' } } };
    expect(
      responsesToChat(
        read({
          input: 'x',
          tools: [{ type: 'function', name: 'get_weather', description: 'Weather', parameters, strict: true }],
          tool_choice: { type: 'function', name: 'get_weather' },
          text: { format: { type: 'json_schema', name: 'out', schema, strict: true } },
          max_output_tokens: 50,
          temperature: 0.2,
          top_p: 0.9,
        }),
      ),
    ).toMatchObject({
      tools: [{ name: 'get_weather', description: 'Weather', parameters, strict: true }],
      toolChoice: { type: 'tool', name: 'get_weather' },
      responseFormat: { type: 'json_schema', name: 'out', schema, strict: true },
      maxTokens: 50,
      temperature: 0.2,
      topP: 0.9,
    });
    expect(responsesToChat(read({ input: 'x', tool_choice: 'required', text: { format: { type: 'json_object' } } }))).toMatchObject({
      toolChoice: { type: 'required' },
      responseFormat: { type: 'json_object' },
    });
  });

  it('refuses what it cannot do, naming the field and what to do instead', () => {
    expect(issues({ input: 'x', tools: [{ type: 'web_search' }] })).toEqual([
      { path: 'tools.0.type', message: expect.stringContaining("'web_search' is not supported") },
    ]);
    expect(issues({ input: 'x', tools: [{ type: 'function' }] })).toEqual([{ path: 'tools.0.name', message: expect.any(String) }]);
    expect(issues({ input: 'x', background: true })).toEqual([{ path: 'background', message: expect.stringContaining('not supported') }]);
    expect(issues({ input: [{ type: 'item_reference' }] })).toEqual([{ path: 'input.0.id', message: expect.any(String) }]);
    expect(issues({ input: [{ role: 'user', content: [{ type: 'input_audio' }] }] })).toEqual([
      { path: 'input.0.content.0.type', message: expect.any(String) },
    ]);
    expect(issues({ input: [] })).toEqual([{ path: 'input', message: expect.any(String) }]);
    expect(() => responsesToChat(read({ input: [{ role: 'user', content: [{ type: 'input_image', file_id: 'file-1' }] }] }))).toThrow(
      /keeps no files/,
    );
    expect(issues({ input: 'x', previous_response_id: null, background: false, store: false })).toEqual([]);
  });

  it('reads references to stored items: item_reference, and a message or function call given only by its id', () => {
    expect(
      read({
        previous_response_id: 'resp_1',
        input: [
          { type: 'item_reference', id: 'msg_1' },
          { id: 'msg_2' },
          { type: 'message', id: 'msg_3' },
          { type: 'function_call', id: 'fc_1' },
          { type: 'message', id: 'msg_4', role: 'assistant', content: 'kept whole' },
        ],
      }).input,
    ).toEqual([
      { type: 'item_reference', id: 'msg_1' },
      { type: 'item_reference', id: 'msg_2' },
      { type: 'item_reference', id: 'msg_3' },
      { type: 'item_reference', id: 'fc_1' },
      { type: 'message', id: 'msg_4', role: 'assistant', content: [{ type: 'input_text', text: 'kept whole' }] },
    ]);
  });
});

const meta = (request: object = {}): ResponseMeta => ({
  id: 'resp_1',
  createdAt: 1_700_000_000,
  model: 'local-chat',
  request: read({ input: 'x', ...request }),
});
const scripted = (pieces: string[], done: ChatDone, failAfter?: Error): ChatStream => ({
  pieces: (async function* gen() {
    for (const [i, p] of pieces.entries()) {
      if (i === pieces.length - 1 && failAfter) throw failAfter;
      yield p;
    }
  })(),
  done: Promise.resolve(done),
});
const drain = async (g: AsyncIterable<ResponseEvent>) => {
  const out: ResponseEvent[] = [];
  for await (const e of g) out.push(e);
  return out;
};
const usage = { promptTokens: 5, completionTokens: 3 };

describe('Responses wire: answers', () => {
  it("echoes the request's settings with OpenAI's defaults, and says why a response is incomplete", () => {
    const r = responseObject(meta({ instructions: 'Be brief.', metadata: { a: 'b' } }), { output: [], finishReason: 'length', usage });
    expect(r).toMatchObject({
      id: 'resp_1',
      object: 'response',
      created_at: 1_700_000_000,
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
      instructions: 'Be brief.',
      metadata: { a: 'b' },
      tool_choice: 'auto',
      tools: [],
      temperature: 1,
      top_p: 1,
      parallel_tool_calls: true,
      text: { format: { type: 'text' } },
      store: true,
      error: null,
      usage: {
        input_tokens: 5,
        output_tokens: 3,
        total_tokens: 8,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens_details: { reasoning_tokens: 0 },
      },
    });
    expect(responseObject(meta(), { output: [], finishReason: 'content_filter' }).incomplete_details).toEqual({ reason: 'content_filter' });
    expect(responseObject(meta(), { output: [] })).toMatchObject({ status: 'in_progress', usage: null });
  });

  it('puts the text in a message item and each call in a function_call item', () => {
    const call = { id: 'call_1', name: 'f', arguments: '{}' };
    expect(responseOutput({ text: 'Hi', finishReason: 'stop' })).toEqual([
      {
        id: expect.stringMatching(/^msg_/),
        type: 'message',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', annotations: [], logprobs: [], text: 'Hi' }],
      },
    ]);
    expect(responseOutput({ text: '', finishReason: 'tool_calls', toolCalls: [call] })).toEqual([
      { id: expect.stringMatching(/^fc_/), type: 'function_call', status: 'completed', call_id: 'call_1', name: 'f', arguments: '{}' },
    ]);
    expect(responseOutput({ text: 'Hm', finishReason: 'tool_calls', toolCalls: [call] }).map((i) => i.type)).toEqual([
      'message',
      'function_call',
    ]);
    expect(responseOutput({ text: 'Cut', finishReason: 'length' })[0].status).toBe('incomplete');
  });

  it('streams text then calls, the calls after the message (output_index 1), numbered in order', async () => {
    const call = { id: 'call_1', name: 'f', arguments: '{"a":1}' };
    const events = await drain(
      responseStreamEvents(meta(), scripted(['Hel', 'lo'], { finishReason: 'tool_calls', usage, toolCalls: [call] })),
    );
    expect(events.map((e) => e.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_e, i) => i));
    expect(events[6]).toMatchObject({ text: 'Hello', output_index: 0, content_index: 0 });
    expect(events[9]).toMatchObject({ output_index: 1, item: { type: 'function_call', call_id: 'call_1', arguments: '' } });
    expect(events.at(-1)!.response).toMatchObject({
      status: 'completed',
      output: [{ type: 'message' }, { type: 'function_call', arguments: '{"a":1}' }],
    });
  });

  it('ends with response.incomplete when cut at max_output_tokens, and opens an empty message for an empty answer', async () => {
    const cut = await drain(responseStreamEvents(meta(), scripted(['a'], { finishReason: 'length', usage })));
    expect(cut.at(-1)).toMatchObject({ type: 'response.incomplete', response: { incomplete_details: { reason: 'max_output_tokens' } } });
    const empty = await drain(responseStreamEvents(meta(), scripted([], { finishReason: 'stop', usage })));
    expect(empty.map((e) => e.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
  });

  it("ends with OpenAI's error event on a failure midway: an exposed message as is, anything else unnamed", async () => {
    const failed = await drain(
      responseStreamEvents(
        meta(),
        scripted(['a', 'b'], { finishReason: 'error', usage }, new UpstreamFailed('The upstream went away', { code: 'upstream_error' })),
      ),
    );
    expect(failed.at(-1)).toEqual({
      type: 'error',
      sequence_number: failed.length - 1,
      code: 'upstream_error',
      message: 'The upstream went away',
      param: null,
    });
    const bug = await drain(
      responseStreamEvents(meta(), scripted(['a', 'b'], { finishReason: 'error', usage }, new Error('secret stack'))),
    );
    expect(bug.at(-1)).toMatchObject({ type: 'error', code: 'server_error', message: 'Internal server error' });
  });
});
