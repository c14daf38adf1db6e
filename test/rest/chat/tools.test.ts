import { sseChunks } from '../../e2e/chat/wire';
import { chatInProcess, type ChatInProcess } from './fixture';

/**
 * The chat proxy's `tool_defns` reach the model (local-chat, which calls the tool whose name matches
 * the question): the answer says so with finish_reason `tool_calls` and the calls, OpenAI-shaped, on
 * the JSON answer and on the stream's last chunk. Entries may be OpenAI-style, bare, or names of
 * `all_tools` entries; bad ones are 422 naming the entry.
 */
let f: ChatInProcess;
beforeAll(async () => {
  f = await chatInProcess();
});
afterAll(async () => {
  await f?.close();
});

const QUESTION = 'What is the weather in Paris?';
const parameters = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
const weather = { type: 'function', function: { name: 'get_weather', description: 'The current weather in a city', parameters } };
const calls = [{ id: expect.stringMatching(/^call_/), type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }];

describe('tool_defns', () => {
  it('generate_answer: an OpenAI-style definition reaches the model; the answer carries finish_reason tool_calls and the calls', async () => {
    const r = await f.post('/api/generate_answer', f.body(QUESTION, { tool_defns: [weather] }));
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ response: '', generated_search_text: QUESTION, finish_reason: 'tool_calls', tool_calls: calls });
  });

  it('stream_generate_answer: the last chunk carries finish_reason tool_calls and the calls', async () => {
    const r = await f.post('/api/stream_generate_answer', f.body(QUESTION, { tool_defns: [weather.function] }));
    expect(r.status).toBe(200);
    const { chunks, done } = sseChunks(r.text);
    expect(done).toBe(true);
    expect(chunks.at(-1)).toEqual({ generated_search_text: QUESTION, response: '', finish_reason: 'tool_calls', tool_calls: calls });
  });

  it('takes names of all_tools entries; all_tools alone, or a tool the question does not match, leaves a plain answer', async () => {
    const named = await f.post(
      '/api/generate_answer',
      f.body(QUESTION, { tool_defns: ['get_weather'], all_tools: { get_weather: weather, unused: { name: 'unused' } } }),
    );
    expect(named.body).toMatchObject({ finish_reason: 'tool_calls', tool_calls: calls });
    const alone = await f.post('/api/generate_answer', f.body(QUESTION, { all_tools: { get_weather: weather } }));
    expect(alone.body).toEqual({ response: expect.any(String), generated_search_text: QUESTION, finish_reason: 'stop' });
    const unmatched = await f.post(
      '/api/generate_answer',
      f.body('What are the side effects of aspirin?', { tool_defns: [{ name: 'book_flight', description: 'Books a flight', parameters }] }),
    );
    expect(unmatched.body).toMatchObject({ response: expect.stringContaining('stomach upset'), finish_reason: 'stop' });
    expect(unmatched.body).not.toHaveProperty('tool_calls');
  });

  it("leaves the tools' share of the context to them: a long history is cut to what the definitions leave (the gateway counts them with the prompt)", async () => {
    const many = Array.from({ length: 40 }, (_, i) => ({
      name: `lookup_${i}`,
      description: `Looks up record kind ${i} in the archive of the company`,
      parameters: {
        type: 'object',
        properties: Object.fromEntries(
          Array.from({ length: 4 }, (_, j) => [`field_${j}`, { type: 'string', description: `The field ${j} of the record` }]),
        ),
      },
    }));
    const history = Array.from({ length: 200 }, (_, i) => ({
      user_query: `Question ${i} about the glaciers of the north?`,
      response: `Answer ${i}: the glaciers retreat as the climate warms, year after year.`.repeat(3),
    }));
    const r = await f.post('/api/generate_answer', f.body(QUESTION, { tool_defns: [weather, ...many], history_prompt: history }));
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ finish_reason: 'tool_calls', tool_calls: calls });
    const tooMany = Array.from({ length: 75 }, (_, i) => ({ ...many[i % 40], name: `lookup_${i}` }));
    const over = await f.post('/api/generate_answer', f.body(QUESTION, { tool_defns: tooMany }));
    expect(over.status).toBe(400);
    expect(over.body.detail).toMatch(/^The tools' definitions take \d+ tokens, over the 7168 the model reads besides its answer\.$/);
  });

  it('refuses (422, naming the entry) a definition without a name, a name all_tools does not hold, and a bad all_tools entry', async () => {
    const noName = await f.post('/api/generate_answer', f.body(QUESTION, { tool_defns: [{ description: 'nameless' }] }));
    expect(noName.status).toBe(422);
    expect(JSON.stringify(noName.body.detail)).toContain('tool_defns');
    const unknown = await f.post('/api/generate_answer', f.body(QUESTION, { tool_defns: ['get_weather'] }));
    expect(unknown.status).toBe(422);
    expect(unknown.body.detail).toEqual([
      expect.objectContaining({ loc: ['body', 'tool_defns', 0], msg: "No tool named 'get_weather' in all_tools" }),
    ]);
    const bad = await f.post(
      '/api/generate_answer',
      f.body(QUESTION, { tool_defns: ['get_weather'], all_tools: { get_weather: 'sunny' } }),
    );
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['body', 'all_tools', 'get_weather']);
  });
});
