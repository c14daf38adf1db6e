import { UpstreamFailed } from '../../../core/shared/errors';
import { chatStreamOf } from '../../../core/models/upstream/chat-stream';
import { finishOf, openAiChunk, openAiCompletion } from '../../../core/models/vendors/openai';
import { drain, drainFailing } from './provider-helpers';

/** The one OpenAI chat-completions decoder (vendor adapters and the gateway's REST clients), over chatStreamOf. */
const base = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'm' };
const chunk = (delta: object, finish: string | null = null) => ({
  ...base,
  choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
});
const usage = (prompt: number, completion: number) => ({
  ...base,
  choices: [],
  usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
});

async function* streamOf(items: unknown[]) {
  for (const item of items) yield item;
}
const read = (items: unknown[], opts: { ownCodes?: boolean; signal?: AbortSignal } = {}) =>
  chatStreamOf(streamOf(items), {
    vendor: 'Fake',
    messages: [{ role: 'user', text: 'hi' }],
    signal: opts.signal,
    decode: (c) => openAiChunk(c, 'Fake', opts.ownCodes),
  });

describe('OpenAI chat stream decoder', () => {
  it('reads a stream: the role chunk, text pieces, the finish chunk and the usage chunk', async () => {
    const r = await drain(
      read([
        chunk({ role: 'assistant', content: '' }),
        chunk({ content: 'Hel' }),
        chunk({ content: 'lo' }),
        chunk({}, 'length'),
        usage(9, 2),
      ]),
    );
    expect(r).toMatchObject({ pieces: ['Hel', 'lo'], finishReason: 'length', usage: { promptTokens: 9, completionTokens: 2 } });
  });

  it("reads Azure's filter-results chunk (no choices) and a null content", async () => {
    const r = await drain(
      read([{ ...base, choices: [], prompt_filter_results: [] }, chunk({ content: null }), chunk({ content: 'ok' }, 'stop')]),
    );
    expect(r).toMatchObject({ pieces: ['ok'], finishReason: 'stop' });
  });

  it('estimates the usage the stream does not give', async () => {
    const r = await drain(read([chunk({ content: 'one two three' }, 'stop')]));
    expect(r.usage.completionTokens).toBeGreaterThan(0);
    expect(r.usage.promptTokens).toBeGreaterThan(0);
  });

  it('maps finish reasons: stop, length, content_filter and tool_calls as they are, function_call to tool_calls, anything else to stop', () => {
    expect(['stop', 'length', 'content_filter', 'tool_calls', 'function_call', 'eos'].map(finishOf)).toEqual([
      'stop',
      'length',
      'content_filter',
      'tool_calls',
      'tool_calls',
      'stop',
    ]);
  });

  it('fails on an error chunk midway with the words it carries: 502 upstream_error, done says error', async () => {
    const openAi = await drainFailing(
      read([chunk({ content: 'par' }), { error: { message: 'The server had an error', code: 'server_error' } }]),
    );
    expect(openAi).toMatchObject({ pieces: ['par'], finishReason: 'error' });
    expect(openAi.error).toBeInstanceOf(UpstreamFailed);
    expect(openAi.error).toMatchObject({ code: 'upstream_error', message: 'Fake failed midway: The server had an error' });
    const vllm = await drainFailing(read([{ object: 'error', message: 'vLLM engine died', type: 'InternalServerError', code: 500 }]));
    expect(vllm.error).toMatchObject({ code: 'upstream_error', message: 'Fake failed midway: vLLM engine died' });
  });

  it("passes on the code of our own gateway's error chunk, never a vendor's", async () => {
    const ours = await drainFailing(read([{ error: { message: 'Key over its limit', code: 'rate_limited' } }], { ownCodes: true }));
    expect(ours.error).toMatchObject({ code: 'rate_limited', message: 'Fake failed midway: Key over its limit' });
    const bare = await drainFailing(read([{ error: {} }], { ownCodes: true }));
    expect(bare.error).toMatchObject({ code: 'upstream_error', message: 'Fake failed midway' });
  });

  it('fails a stream cut before its finish, or a chunk that is not one, with upstream_bad_response', async () => {
    const cut = await drainFailing(read([chunk({ content: 'half' })]));
    expect(cut).toMatchObject({ pieces: ['half'], finishReason: 'error', error: { code: 'upstream_bad_response' } });
    expect((await drainFailing(read([{ id: 'x' }]))).error).toMatchObject({
      code: 'upstream_bad_response',
      message: expect.stringContaining('without choices'),
    });
    expect((await drainFailing(read(['text']))).error).toMatchObject({ code: 'upstream_bad_response' });
  });

  it('takes how the stream ended as its finish when the source knows (a [DONE] seen), else fails', async () => {
    const stream = (endedAs: () => 'stop' | undefined) =>
      chatStreamOf(streamOf([chunk({ content: 'all' })]), {
        vendor: 'Fake',
        decode: (c) => openAiChunk(c, 'Fake'),
        endedAs,
      });
    expect(await drain(stream(() => 'stop'))).toMatchObject({ pieces: ['all'], finishReason: 'stop' });
    expect((await drainFailing(stream(() => undefined))).error).toMatchObject({ code: 'upstream_bad_response' });
  });

  it("ends with the caller's own reason when its signal aborted", async () => {
    const caller = new AbortController();
    async function* slow() {
      yield chunk({ content: 'a' });
      caller.abort(new Error('caller left'));
      throw new Error('socket closed');
    }
    const r = await drainFailing(chatStreamOf(slow(), { vendor: 'Fake', signal: caller.signal, decode: (c) => openAiChunk(c, 'Fake') }));
    expect(r).toMatchObject({ pieces: ['a'], finishReason: 'error' });
    expect(r.error).toEqual(new Error('caller left'));
  });

  it('reads a whole chat.completion as one piece, and refuses one without choices', async () => {
    const whole = (json: unknown) => chatStreamOf([json], { vendor: 'Fake', decode: (c) => openAiCompletion(c, 'Fake') });
    const r = await drain(
      whole({
        ...base,
        object: 'chat.completion',
        choices: [{ index: 0, message: { role: 'assistant', content: 'All of it.' }, finish_reason: 'content_filter' }],
        usage: { prompt_tokens: 5, completion_tokens: 3 },
      }),
    );
    expect(r).toMatchObject({ pieces: ['All of it.'], finishReason: 'content_filter', usage: { promptTokens: 5, completionTokens: 3 } });
    expect(await drain(whole({ choices: [{ message: { content: null } }] }))).toMatchObject({ pieces: [], finishReason: 'stop' });
    expect((await drainFailing(whole({ choices: [] }))).error).toMatchObject({ code: 'upstream_bad_response' });
    expect((await drainFailing(whole(null))).error).toMatchObject({ code: 'upstream_bad_response' });
  });
});
