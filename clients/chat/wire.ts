import type { ModelChoice, Question, SourcesQuestion } from '../../core/chat/conversation';
import type { ChatCaller } from '../../core/chat/credentials';

/**
 * The chat domain's questions as the spec's bodies (the inverse of rest/chat/wire.ts), the caller's
 * credentials where the spec carries them: the user's own token in `request.user_cred`, the LM key in
 * `api_key`, so the proxy elsewhere establishes the same caller.
 */
const present = <T extends Record<string, unknown>>(o: T) =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== null));

const modelInfoOf = (m: ModelChoice) => {
  const info = present({ ...(m.info ?? {}), modelId: m.id, temperature: m.temperature, max_tokens: m.maxTokens });
  return Object.keys(info).length ? info : undefined;
};

const requestOf = (q: SourcesQuestion, caller: ChatCaller) =>
  present({
    user_cred: { token: caller.user.bearer, client: { tenant_id: q.tenantId ?? caller.user.tenantId } },
    prev_context: q.prevContext,
    kvp: { files: q.files.map((file_name) => ({ file_name, source_category: 'InputFile' })), examples: q.examples },
  });

/** generate_answer / stream_generate_answer. */
export const answerBody = (q: Question, caller: ChatCaller) =>
  present({
    request: requestOf(q, caller),
    query: q.query,
    prompt: q.instructions,
    history_prompt: q.history,
    gen_search_text: q.searchText,
    model_info: modelInfoOf(q.model),
    api_key: caller.modelKey,
  });

/** get_sources: the query in `request`, the history as `chat_hist`, the bot's details handed back. */
export const sourcesBody = (q: SourcesQuestion, caller: ChatCaller) =>
  present({
    request: { ...requestOf(q, caller), query: q.query },
    chat_hist: q.history,
    model_info: modelInfoOf(q.model),
    api_key: caller.modelKey,
    bot_details: present({ llm_data: q.llmData, num_new_uploads: q.numNewUploads }),
  });

/**
 * What an answer to `q` is grounded in, asked of get_sources: the same question, history, files and
 * model. A caller's own search text is searched as is, with no history to rewrite it, as the answer does.
 */
export function groundsOf(q: Question): SourcesQuestion {
  const { instructions: _i, searchText, ...rest } = q;
  const given = searchText?.trim();
  return given ? { ...rest, query: given, history: [] } : rest;
}
