import type { Caller } from '../../../core/shared/auth/caller';
import { createChatService } from '../../../core/chat/chat-service';
import type { Question } from '../../../core/chat/conversation';
import type { ChatCaller } from '../../../core/chat/credentials';
import type { AnswerModels, Retrieval } from '../../../core/chat/ports';
import { REWRITE_INSTRUCTION } from '../../../core/chat/search-text';
import { Forbidden, NotFound, Unauthenticated } from '../../../core/shared/errors';
import type { Ctx } from '../../../core/shared/context';
import type { ChatMessage, ChatStream } from '../../../core/models/neutral';

const user = { tenantId: 'acme', subject: 'ann', roles: ['search:read'], audience: ['chat'], bearer: 'tok' } as Caller;
/** The caller the edge established: the user's verified token and their LM key. */
const as = (modelKey = 'lmk', who: Caller = user): Ctx<ChatCaller> => ({ caller: { user: who, modelKey } });
const limits = { searchMs: 1000, extractMs: 1000, rewriteMs: 1000, sources: 5, filePassages: 8 };

/** A model that answers `answers` in turn and records what it was sent; a retrieval that records its queries. */
function fakes(answers: string[]) {
  const sent: { messages: ChatMessage[]; route: string }[] = [];
  const searched: string[] = [];
  const models: AnswerModels = {
    open: async (key, id) => {
      if (key !== 'lmk') throw new Unauthenticated('key');
      if (id !== 'm') throw new NotFound('model');
      return { id, contextLength: 4096 };
    },
    chat: async (_m, req): Promise<ChatStream> => {
      sent.push({ messages: req.messages, route: req.route });
      const text = answers.shift() ?? '';
      return {
        pieces: (async function* () {
          yield text;
        })(),
        done: Promise.resolve({ finishReason: 'stop', usage: { promptTokens: 1, completionTokens: 1 } }),
      };
    },
  };
  const retrieval: Retrieval = {
    passages: async (req) => {
      searched.push(req.query);
      return [{ objectId: 'o1', chunkId: 1, chunkIndex: 0, text: 'Ice melts.', score: 1, title: 'Ice', fileName: null }];
    },
  };
  return { service: createChatService({ retrieval, models, limits, defaultModel: 'm' }), sent, searched };
}

const question = (q: Partial<Question> = {}): Question => ({
  query: 'q',
  history: [],
  files: [],
  examples: [],
  model: {},
  tenantId: 'acme',
  ...q,
});

describe('the chat service', () => {
  it('has the model rewrite a follow-up with the history, searches with the rewrite, then answers the question', async () => {
    const f = fakes(['Standalone question: "Why does ice melt?"', 'Because it is warm [1].']);
    const a = await f.service.generateAnswer(
      question({ query: 'Why?', history: [{ user_query: 'Tell me about ice', response: 'Ice is cold.' }] }),
      as(),
    );
    expect(a).toEqual({ response: 'Because it is warm [1].', generated_search_text: 'Why does ice melt?', finish_reason: 'stop' });
    expect(f.sent.map((s) => s.route)).toEqual(['chat.rewrite', 'chat.generate_answer']);
    expect(f.sent[0].messages.map((m) => [m.role, m.text])).toEqual([
      ['system', REWRITE_INSTRUCTION],
      ['user', 'Tell me about ice'],
      ['assistant', 'Ice is cold.'],
      ['user', 'Why?'],
    ]);
    expect(f.searched).toEqual(['Why does ice melt?']);
    expect(f.sent[1].messages.at(-1)).toEqual({ role: 'user', text: 'Why?' });
  });

  it('gives the model the answer so far and the word continue for $continue_answer', async () => {
    const f = fakes(['and then it flows.']);
    const a = await f.service.generateAnswer(
      question({ query: '$continue_answer', history: [{ user_query: 'Why does ice melt?' }], prevContext: 'Ice melts when warm' }),
      as(),
    );
    expect(a.generated_search_text).toBe('Why does ice melt?');
    expect(f.sent[0].messages.slice(-3)).toEqual([
      { role: 'user', text: 'Why does ice melt?' },
      { role: 'assistant', text: 'Ice melts when warm' },
      { role: 'user', text: 'continue' },
    ]);
  });

  it('refuses a bad key or an unknown model before any search', async () => {
    const f = fakes([]);
    await expect(f.service.generateAnswer(question(), as('nope'))).rejects.toBeInstanceOf(Unauthenticated);
    await expect(f.service.generateAnswer(question({ model: { id: 'other' } }), as())).rejects.toBeInstanceOf(NotFound);
    expect(f.searched).toEqual([]);
  });

  it('checks the caller: the search read role, and a question naming a tenant names theirs', async () => {
    const f = fakes([]);
    await expect(f.service.generateAnswer(question({ tenantId: 'other' }), as())).rejects.toMatchObject({ code: 'tenant_mismatch' });
    await expect(f.service.getSources(question({ tenantId: 'other' }), as())).rejects.toBeInstanceOf(Forbidden);
    await expect(f.service.streamAnswer(question(), as('lmk', { ...user, roles: [] }))).rejects.toMatchObject({
      code: 'insufficient_scope',
    });
    // No tenant named: the caller's own.
    await expect(f.service.getSources(question({ tenantId: undefined }), as())).resolves.toMatchObject({ success: true });
    expect(f.sent).toEqual([]);
  });

  it('streams the pieces, then a chunk with the finish reason, with the sources and model alongside', async () => {
    const f = fakes(['Warmth [1].']);
    const s = await f.service.streamAnswer(question({ query: 'Why does ice melt?' }), as());
    expect(s.model).toBe('m');
    expect(s.sources.map((x) => [x.citation, x.objectId, x.category])).toEqual([[1, 'o1', 'search']]);
    const chunks = [];
    for await (const c of s.chunks) chunks.push(c);
    expect(chunks).toEqual([
      { generated_search_text: 'Why does ice melt?', response: 'Warmth [1].', finish_reason: null },
      { generated_search_text: 'Why does ice melt?', response: '', finish_reason: 'stop' },
    ]);
  });

  it('get_sources without a key searches with the query itself, even with history', async () => {
    const f = fakes([]);
    const r = await f.service.getSources(question({ query: 'Why?', history: [{ user_query: 'Tell me about ice' }] }), { caller: { user } });
    expect(r.sources.gen_search_text).toBe('Why?');
    expect(r.sources.history_prompt).toEqual([{ user_query: 'Tell me about ice' }]);
    expect(f.sent).toEqual([]);
  });
});
