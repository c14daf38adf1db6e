import { z } from 'zod';

/**
 * The chat proxy's bodies in the spec's wire names (GenerateAnswerRequest and its parts), shared by
 * the REST face (422 naming the field) and the REST client; the subgraph holds its arguments to the
 * same field rules (`rules`). Unknown keys are kept out of the way, not refused: callers send bot
 * settings the proxy does not use. Bounds protect the service: text lengths, list lengths, nesting.
 */
export const MAX_QUERY_CHARS = 20_000;
export const MAX_CONTEXT_CHARS = 200_000;
export const MAX_TURNS = 200;
export const MAX_FILES = 50;

const text = (max: number) => z.string().max(max);
const optionalText = (max: number) => z.string().max(max).nullish();
const dict = () => z.record(z.string(), z.unknown());

/** Each field's rule, whatever a face calls it. */
export const rules = {
  query: () => text(MAX_QUERY_CHARS),
  context: () => optionalText(MAX_CONTEXT_CHARS),
  searchText: () => optionalText(MAX_QUERY_CHARS),
  tenantId: () => z.string().min(1).max(200),
  fileName: () => z.string().min(1).max(1000),
  modelId: () => z.string().min(1).max(200).nullish(),
  modelVersion: () => z.string().max(100).nullish(),
  temperature: () => z.number().min(0).max(2).nullish(),
  maxTokens: () => z.int().min(1).max(1_000_000).nullish(),
};

/** A function the model may call: OpenAI's `{type: 'function', function: {...}}` or the bare `{name, description, parameters}`. */
const ToolFunction = z.object({
  name: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'A tool name is 1 to 64 letters, digits, _ . or -'),
  description: z.string().max(4000).nullish(),
  parameters: dict().nullish(),
  strict: z.boolean().nullish(),
});
/** A tool's definition, OpenAI's way or bare. */
export const ToolDefinitionBody = z.union([z.object({ type: z.literal('function'), function: ToolFunction }), ToolFunction]);
/** An entry of `tool_defns`: a definition, or the name of one in `all_tools`. */
export const ToolDefn = z.union([ToolDefinitionBody, z.string().min(1).max(64)]);

const ClientInfo = z.object({ tenant_id: rules.tenantId() });
/** The user's access token and the tenant the request is for; a missing token is a 401, not a 422. */
export const UserCred = z.object({ token: z.string().max(16_384).nullish(), client: ClientInfo });

/** `kvp.files`: the files the user just uploaded (`source_category` `InputFile`) and others. */
export const FileRef = z.object({ file_name: rules.fileName(), source_category: z.string().max(100).nullish() });

/** `kvp` (top level or in `user_chat`): `files`, `examples`, and whatever else a bot sends. */
export const Kvp = z.looseObject({
  files: z.array(FileRef).max(MAX_FILES).nullish(),
  /** Few-shot examples: `{user_query, response}` pairs. */
  examples: z
    .array(z.object({ user_query: text(MAX_QUERY_CHARS), response: text(MAX_QUERY_CHARS) }))
    .max(20)
    .nullish(),
});

export const GenerateAnswerRequest = z.object({
  user_cred: UserCred.nullish(),
  bot_config: z.object({ caller_version: z.string().max(100).nullish(), tool_config: dict().nullish() }).nullish(),
  query: optionalText(MAX_QUERY_CHARS),
  task_process: z.object({ service: z.string().max(200).nullish() }).nullish(),
  prev_context: optionalText(MAX_CONTEXT_CHARS),
  kvp: Kvp.nullish(),
  user_chat: z.object({ query: optionalText(MAX_QUERY_CHARS), kvp: Kvp.nullish() }).nullish(),
});

export const ModelInfo = z.looseObject({
  modelId: rules.modelId(),
  modelVersion: rules.modelVersion(),
  temperature: rules.temperature(),
  max_tokens: rules.maxTokens(),
});

/** One turn of `history_prompt` / `chat_hist`: a user query with the answer it got, a chat message, or a bare query. */
export const Turn = z.union([
  text(MAX_QUERY_CHARS),
  z.looseObject({ user_query: text(MAX_QUERY_CHARS), response: optionalText(MAX_CONTEXT_CHARS) }),
  z.object({ role: z.enum(['user', 'assistant']), content: text(MAX_CONTEXT_CHARS) }),
]);
export type Turn = z.output<typeof Turn>;

/** Body of `generate_answer` and `stream_generate_answer`. */
export const GenerateAnswerBody = z.object({
  request: GenerateAnswerRequest,
  is_session: z.boolean().nullish(),
  model_info: ModelInfo.nullish(),
  /** The bot's instructions: the system prompt. */
  prompt: optionalText(MAX_CONTEXT_CHARS),
  /** The tools the model may call (DECISIONS): definitions, or names of `all_tools` entries. */
  tool_defns: z.array(ToolDefn).max(128).nullish(),
  /** Tool definitions by name, which `tool_defns` may name; alone they enable nothing. */
  all_tools: z.record(z.string(), z.unknown()).nullish(),
  history_prompt: z.array(Turn).max(MAX_TURNS).nullish(),
  query: optionalText(MAX_QUERY_CHARS),
  gen_search_text: rules.searchText(),
  generated_chat_id: z.int().nullish(),
  api_key: z.string().max(4096).nullish(),
});
export type GenerateAnswerBody = z.output<typeof GenerateAnswerBody>;

/** Body of `get_sources`; `api_key` and `model_info` (extensions) let a follow-up be rewritten by the model. */
export const GetSourcesBody = z.object({
  request: GenerateAnswerRequest,
  bot_details: z
    .looseObject({
      llm_data: z
        .looseObject({ context: optionalText(MAX_CONTEXT_CHARS), upload_files: z.array(z.unknown()).max(MAX_FILES).nullish() })
        .nullish(),
      system_instruction_cache_key: z.string().max(500).nullish(),
      num_new_uploads: z.int().min(0).nullish(),
    })
    .nullish(),
  chat_hist: z.array(Turn).max(MAX_TURNS).nullish(),
  model_info: ModelInfo.nullish(),
  api_key: z.string().max(4096).nullish(),
});
export type GetSourcesBody = z.output<typeof GetSourcesBody>;
