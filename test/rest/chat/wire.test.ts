import { GenerateAnswerBody, GetSourcesBody } from '../../../core/chat/inputs';
import { ValidationFailed } from '../../../core/shared/errors';
import { historyOf, questionOf, sourcesQuestionOf } from '../../../rest/chat/wire';

/** The spec's bodies read into the chat domain's question (the credentials in them are the router's). */
const body = (extra: Record<string, unknown> = {}, request: Record<string, unknown> = {}) =>
  GenerateAnswerBody.parse({ request: { user_cred: { token: 't', client: { tenant_id: 'x' } }, ...request }, ...extra });

describe('the query and kvp', () => {
  it('takes the top-level query first, then request.query, then request.user_chat.query', () => {
    expect(questionOf(body({ query: 'top' }, { query: 'req', user_chat: { query: 'chat' } })).query).toBe('top');
    expect(questionOf(body({}, { query: 'req', user_chat: { query: 'chat' } })).query).toBe('req');
    expect(questionOf(body({}, { user_chat: { query: 'chat' } })).query).toBe('chat');
    expect(questionOf(body({ query: '  ' }, { user_chat: { query: 'chat' } })).query).toBe('chat');
  });

  it('refuses a request without any query, naming the field', () => {
    const err = (() => {
      try {
        questionOf(body());
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(ValidationFailed);
    expect((err as ValidationFailed).issues[0]).toMatchObject({ loc: ['body', 'query'], type: 'missing' });
  });

  it('merges user_chat.kvp under the request kvp and keeps only InputFile uploads, once each', () => {
    const q = questionOf(
      body(
        { query: 'q' },
        {
          kvp: {
            files: [
              { file_name: 'a.pdf', source_category: 'InputFile' },
              { file_name: 'b.pdf', source_category: 'Repository' },
              { file_name: 'a.pdf', source_category: 'InputFile' },
            ],
            examples: [{ user_query: 'eq', response: 'er' }],
          },
          user_chat: { kvp: { files: [{ file_name: 'ignored.pdf' }], bot: 'x' } },
        },
      ),
    );
    expect(q.files).toEqual(['a.pdf']);
    expect(q.examples).toEqual([{ user_query: 'eq', response: 'er' }]);
    expect(questionOf(body({ query: 'q' }, { user_chat: { kvp: { files: [{ file_name: 'c.txt' }] } } })).files).toEqual(['c.txt']);
  });

  it('reads the tenant, the continuation, the instructions, the search text and the model choice', () => {
    const q = questionOf(
      body(
        {
          query: '$continue_answer',
          prompt: 'Be brief.',
          gen_search_text: 'ice',
          model_info: { modelId: 'm', temperature: 0.2, max_tokens: 64, extra: 1 },
        },
        { prev_context: 'so far' },
      ),
    );
    expect(q).toMatchObject({
      tenantId: 'x',
      query: '$continue_answer',
      prevContext: 'so far',
      instructions: 'Be brief.',
      searchText: 'ice',
      model: { id: 'm', temperature: 0.2, maxTokens: 64, info: { modelId: 'm', temperature: 0.2, max_tokens: 64, extra: 1 } },
    });
  });

  it('reads get_sources from request.query, chat_hist and bot_details', () => {
    const q = sourcesQuestionOf(
      GetSourcesBody.parse({
        request: { user_cred: { token: 't', client: { tenant_id: 'x' } }, query: 'Why?' },
        chat_hist: ['before'],
        bot_details: { llm_data: { context: 'c', upload_files: ['u.pdf'] }, num_new_uploads: 2 },
      }),
    );
    expect(q).toMatchObject({
      tenantId: 'x',
      query: 'Why?',
      history: [{ user_query: 'before' }],
      llmData: { context: 'c', upload_files: ['u.pdf'] },
      numNewUploads: 2,
    });
  });
});

describe('history', () => {
  it('reads {user_query, response} turns, chat messages and bare queries alike', () => {
    expect(
      historyOf([{ user_query: 'q1', response: 'a1' }, { role: 'user', content: 'q2' }, { role: 'assistant', content: 'a2' }, 'q3']),
    ).toEqual([{ user_query: 'q1', response: 'a1' }, { user_query: 'q2', response: 'a2' }, { user_query: 'q3' }]);
    expect(historyOf(undefined)).toEqual([]);
  });
});
