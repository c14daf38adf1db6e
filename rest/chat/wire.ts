import type { Example, HistoryTurn, Question, SourcesQuestion } from '../../core/chat/conversation';
import type { GenerateAnswerBody, GetSourcesBody, Turn } from '../../core/chat/inputs';
import type { z } from 'zod';
import type { ToolDefinition } from '../../core/models/neutral';
import { ToolDefinitionBody } from '../../core/chat/inputs';
import { ValidationFailed } from '../../core/shared/errors';

/**
 * The chat proxy's spec bodies read into the chat domain's input. The credentials in them
 * (`request.user_cred.token`, `api_key`) are not: the router established the caller from them
 * already (core/chat/credentials.ts); the tenant the request names is the question's.
 */
type Request = GenerateAnswerBody['request'];

/** DECISIONS: the query at the top level wins over `request.query` and `request.user_chat.query`; one of them is required. */
function queryOf(top: string | null | undefined, request: Request): string {
  const query = [top, request.query, request.user_chat?.query].find((q): q is string => typeof q === 'string' && q.trim() !== '');
  if (query === undefined) {
    throw new ValidationFailed([
      { loc: ['body', 'query'], msg: 'Field required: query, request.query or request.user_chat.query', type: 'missing' },
    ]);
  }
  return query;
}

/** `kvp` of the request, with `user_chat.kvp` under it (the request's own keys win). */
const kvpOf = (request: Request) => ({ ...(request.user_chat?.kvp ?? {}), ...(request.kvp ?? {}) });

function uploadedFiles(request: Request): string[] {
  const files = kvpOf(request).files ?? [];
  return [...new Set(files.filter((f) => (f.source_category ?? 'InputFile') === 'InputFile').map((f) => f.file_name))];
}

/**
 * `history_prompt` / `chat_hist` as turns: `{user_query, response}` objects, `{role, content}`
 * messages (an assistant message answers the user message before it), or bare queries.
 */
export function historyOf(turns: readonly Turn[] | undefined | null): HistoryTurn[] {
  const out: HistoryTurn[] = [];
  for (const t of turns ?? []) {
    if (typeof t === 'string') out.push({ user_query: t });
    else if ('user_query' in t) out.push({ user_query: t.user_query, ...(t.response ? { response: t.response } : {}) });
    else if (t.role === 'user') out.push({ user_query: t.content });
    else {
      const last = out.at(-1);
      if (last && last.response === undefined) last.response = t.content;
      else out.push({ user_query: '', response: t.content });
    }
  }
  return out.filter((t) => t.user_query.trim() !== '' || t.response);
}

const examplesOf = (request: Request): Example[] => kvpOf(request).examples ?? [];

/** The spec's `model_info` as the caller's model choice. */
const modelOf = (info: GenerateAnswerBody['model_info']) => ({
  id: info?.modelId ?? undefined,
  temperature: info?.temperature ?? undefined,
  maxTokens: info?.max_tokens ?? undefined,
  info: info ?? undefined,
});

/**
 * `tool_defns` as the call's tools (DECISIONS): each entry an OpenAI-style or bare definition, or
 * the name of an `all_tools` entry (whose value is a definition in either style); a name `all_tools`
 * does not hold, or holds something else, is a 422 naming the entry. Each tool once, by name.
 */
function toolsOf(body: GenerateAnswerBody): ToolDefinition[] | undefined {
  const tools = new Map<string, ToolDefinition>();
  (body.tool_defns ?? []).forEach((entry, i) => {
    let defn: z.output<typeof ToolDefinitionBody>;
    if (typeof entry !== 'string') defn = entry;
    else {
      if (body.all_tools?.[entry] === undefined)
        throw new ValidationFailed([{ loc: ['body', 'tool_defns', i], msg: `No tool named '${entry}' in all_tools`, type: 'value_error' }]);
      const found = ToolDefinitionBody.safeParse(body.all_tools[entry]);
      if (!found.success)
        throw new ValidationFailed([
          {
            loc: ['body', 'all_tools', entry],
            msg: 'Not a tool definition: {name, description, parameters} or {type: "function", function: {...}}',
            type: 'value_error',
          },
        ]);
      defn = found.data;
    }
    const f = 'function' in defn ? defn.function : defn;
    tools.set(f.name, {
      name: f.name,
      ...(f.description ? { description: f.description } : {}),
      ...(f.parameters ? { parameters: f.parameters } : {}),
      ...(f.strict != null ? { strict: f.strict } : {}),
    });
  });
  return tools.size ? [...tools.values()] : undefined;
}

/** generate_answer / stream_generate_answer. */
export const questionOf = (body: GenerateAnswerBody): Question => ({
  tenantId: body.request.user_cred?.client.tenant_id,
  query: queryOf(body.query, body.request),
  prevContext: body.request.prev_context ?? undefined,
  history: historyOf(body.history_prompt),
  files: uploadedFiles(body.request),
  examples: examplesOf(body.request),
  instructions: body.prompt ?? undefined,
  searchText: body.gen_search_text ?? undefined,
  model: modelOf(body.model_info),
  tools: toolsOf(body),
});

/** get_sources: the query is the request's own (its body has no top-level query). */
export const sourcesQuestionOf = (body: GetSourcesBody): SourcesQuestion => ({
  tenantId: body.request.user_cred?.client.tenant_id,
  query: queryOf(undefined, body.request),
  prevContext: body.request.prev_context ?? undefined,
  history: historyOf(body.chat_hist),
  files: uploadedFiles(body.request),
  examples: examplesOf(body.request),
  model: modelOf(body.model_info),
  llmData: body.bot_details?.llm_data ?? undefined,
  numNewUploads: body.bot_details?.num_new_uploads ?? undefined,
});
