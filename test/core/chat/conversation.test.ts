import { historyOf, kvpOf, processQuery, queryOf, uploadedFiles } from '../../../core/chat/conversation';
import { GenerateAnswerBody } from '../../../core/chat/inputs';
import { ValidationFailed } from '../../../core/shared/errors';

const request = (extra: Record<string, unknown> = {}) => GenerateAnswerBody.parse({ request: { user_cred: { token: 't', client: { tenant_id: 'x' } }, ...extra } }).request;

describe('continuation (spec behaviour 1)', () => {
  it('turns $continue_answer into continue and leaves every other query alone', () => {
    expect(processQuery('$continue_answer')).toBe('continue');
    expect(processQuery('  $continue_answer ')).toBe('continue');
    expect(processQuery('What is $continue_answer?')).toBe('What is $continue_answer?');
  });
});

describe('the query and kvp', () => {
  it('takes the top-level query first, then request.query, then request.user_chat.query', () => {
    expect(queryOf('top', request({ query: 'req', user_chat: { query: 'chat' } }))).toBe('top');
    expect(queryOf(undefined, request({ query: 'req', user_chat: { query: 'chat' } }))).toBe('req');
    expect(queryOf(undefined, request({ user_chat: { query: 'chat' } }))).toBe('chat');
    expect(queryOf('  ', request({ user_chat: { query: 'chat' } }))).toBe('chat');
  });

  it('refuses a request without any query, naming the field', () => {
    const err = (() => { try { queryOf(undefined, request()); } catch (e) { return e; } })();
    expect(err).toBeInstanceOf(ValidationFailed);
    expect((err as ValidationFailed).issues[0]).toMatchObject({ loc: ['body', 'query'], type: 'missing' });
  });

  it('merges user_chat.kvp under the request kvp and keeps only InputFile uploads, once each', () => {
    const r = request({
      kvp: { files: [{ file_name: 'a.pdf', source_category: 'InputFile' }, { file_name: 'b.pdf', source_category: 'Repository' }, { file_name: 'a.pdf', source_category: 'InputFile' }] },
      user_chat: { kvp: { files: [{ file_name: 'ignored.pdf' }], bot: 'x' } },
    });
    expect(kvpOf(r)).toMatchObject({ bot: 'x' });
    expect(uploadedFiles(r)).toEqual(['a.pdf']);
    expect(uploadedFiles(request({ user_chat: { kvp: { files: [{ file_name: 'c.txt' }] } } }))).toEqual(['c.txt']);
  });
});

describe('history', () => {
  it('reads {user_query, response} turns, chat messages and bare queries alike', () => {
    expect(historyOf([
      { user_query: 'q1', response: 'a1' },
      { role: 'user', content: 'q2' }, { role: 'assistant', content: 'a2' },
      'q3',
    ])).toEqual([{ user_query: 'q1', response: 'a1' }, { user_query: 'q2', response: 'a2' }, { user_query: 'q3' }]);
    expect(historyOf(undefined)).toEqual([]);
  });
});
