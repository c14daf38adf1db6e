import { joined, ndjsonChunks, sseChunks } from '../../e2e/chat/wire';
import { chatInProcess, type ChatInProcess } from './fixture';

/**
 * What the chat proxy answers over REST: grounding, tenants, streams (read whole: their framing
 * read incrementally and clients leaving are test/e2e/chat's), continuations, history, uploaded
 * files. In process (supertest on the app the platform serves), since none of it depends on a
 * started server.
 */
let f: ChatInProcess;
beforeAll(async () => {
  f = await chatInProcess();
});
afterAll(async () => {
  await f?.close();
});

const ASPIRIN = 'What are the side effects of aspirin?';
const answer = (body: unknown) => f.post('/api/generate_answer', body);

describe('generate_answer', () => {
  it('answers from the right document, citing it, with the search text it used', async () => {
    const r = await answer(f.body(ASPIRIN));
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ response: expect.stringContaining('stomach upset'), generated_search_text: ASPIRIN, finish_reason: 'stop' });
    expect(r.body.response).toMatch(/\[1\]/);
    expect(r.body.response).not.toMatch(/penguin|volcano/i);
  });

  it('takes the query from request.user_chat when the top level has none', async () => {
    const r = await answer(f.body('', {}, { user_chat: { query: 'How do penguins keep the egg warm?', kvp: {} } }));
    expect(r.status).toBe(200);
    expect(r.body.response).toContain('egg warm');
  });

  it("never answers from another tenant's documents", async () => {
    const r = await answer(f.body('What is the launch code? Is aspirin forbidden?'));
    expect(r.status).toBe(200);
    expect(r.body.response).not.toMatch(/swordfish|forbidden/);
  });
});

describe('stream_generate_answer', () => {
  it('streams SSE chunks in order that join to the whole answer, then a finish reason and [DONE]', async () => {
    const whole = (await answer(f.body(ASPIRIN))).body;
    const r = await f.post('/api/stream_generate_answer', f.body(ASPIRIN));
    expect(r.status).toBe(200);
    expect(r.type).toMatch(/^text\/event-stream/);
    const { chunks, done } = sseChunks(r.text);
    expect(done).toBe(true);
    expect(chunks.length).toBeGreaterThan(2);
    expect(chunks.slice(0, -1).every((c) => c.finish_reason === null && c.response !== '')).toBe(true);
    expect(chunks.at(-1)).toEqual({ generated_search_text: ASPIRIN, response: '', finish_reason: 'stop' });
    expect(chunks.every((c) => c.generated_search_text === ASPIRIN)).toBe(true);
    expect(joined(chunks)).toBe(whole.response);
  });

  it('speaks NDJSON when asked', async () => {
    const r = await f.post('/api/stream_generate_answer', f.body(ASPIRIN), { accept: 'application/x-ndjson' });
    expect(r.type).toMatch(/^application\/x-ndjson/);
    const chunks = ndjsonChunks(r.text);
    expect(chunks.at(-1)!.finish_reason).toBe('stop');
    expect(joined(chunks)).toContain('stomach upset');
  });
});

describe('continuation', () => {
  it('stops at max_tokens with length, and $continue_answer with prev_context picks up where it stopped', async () => {
    const question = 'How do emperor penguins breed and keep the egg warm?';
    const whole = (await answer(f.body(question))).body.response as string;
    const cut = await answer(f.body(question, { model_info: { modelId: 'local-chat', max_tokens: 8 } }));
    expect(cut.body.finish_reason).toBe('length');
    expect(whole.startsWith(cut.body.response.trim())).toBe(true);
    const more = await answer(
      f.body(
        '$continue_answer',
        { history_prompt: [{ user_query: question, response: cut.body.response }] },
        { prev_context: cut.body.response },
      ),
    );
    expect(more.status).toBe(200);
    expect(more.body.finish_reason).toBe('stop');
    // The search text of a continuation is the question being continued, not the word `continue`.
    expect(more.body.generated_search_text).toBe(question);
    expect(`${cut.body.response.trim()} ${more.body.response}`).toBe(whole);
  });
});

describe('history', () => {
  it('has the model rewrite a follow-up as a standalone question, and searches with it', async () => {
    const r = await answer(
      f.body('What are its side effects?', {
        history_prompt: [{ user_query: 'Tell me about aspirin', response: 'Aspirin reduces fever. [1]' }],
      }),
    );
    expect(r.status).toBe(200);
    expect(r.body.generated_search_text).toMatch(/^What are its side effects\? .*aspirin/);
    expect(r.body.response).toContain('stomach upset');
  });

  it('uses a gen_search_text the caller gives as it is', async () => {
    const r = await answer(f.body('And then?', { gen_search_text: 'volcano magma pressure', history_prompt: ['Tell me about aspirin'] }));
    expect(r.body.generated_search_text).toBe('volcano magma pressure');
  });
});

describe('uploaded files', () => {
  it('reads the files the user just uploaded alongside the search, and get_sources shows both', async () => {
    await f.ingest({
      title: 'Trip notes',
      file_name: 'trip-notes.txt',
      content: 'The ferry to the island leaves at seven. Bring a warm coat for the ferry deck.',
    });
    const request = { kvp: { files: [{ file_name: 'trip-notes.txt', source_category: 'InputFile' }] } };
    const r = await answer(f.body('When does the ferry leave?', {}, request));
    expect(r.body.response).toContain('ferry to the island leaves at seven');

    const s = await f.post('/api/get_sources', {
      request: { ...(f.body('When does the ferry leave?', {}, request).request as object), query: 'When does the ferry leave?' },
      bot_details: { num_new_uploads: 1, llm_data: { upload_files: [] } },
      chat_hist: [],
    });
    expect(s.status).toBe(200);
    expect(s.body.success).toBe(true);
    expect(Object.keys(s.body.sources).sort()).toEqual([
      'all_input_texts',
      'citations',
      'examples',
      'gen_search_text',
      'history_prompt',
      'llm_data',
      'model_info',
      'num_new_uploads',
      'query',
    ]);
    expect(s.body.sources.all_input_texts.extracted_text_result).toContain('ferry to the island');
    expect(s.body.sources.num_new_uploads).toBe(1);
    expect(s.body.sources.llm_data.upload_files).toEqual(['trip-notes.txt']);
    expect(s.body.sources.citations[0]).toMatchObject({ citation: 1, file_name: 'trip-notes.txt', source_category: 'InputFile' });
  });

  it('get_sources names the document an answer would cite', async () => {
    const s = await f.post('/api/get_sources', { request: { ...(f.body('x').request as object), query: ASPIRIN } });
    expect(s.body.sources.citations.map((c: { title: string }) => c.title)).toContain('Aspirin');
    expect(s.body.sources.all_input_texts.search_text_result).toContain('[1] Aspirin');
    expect(s.body.sources.gen_search_text).toBe(ASPIRIN);
  });
});
