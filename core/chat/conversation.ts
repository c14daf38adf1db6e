import type { ToolDefinition } from '../models/neutral';
/** The spec's continuation constant and what it becomes. */
export const CONTINUE_ANSWER = '$continue_answer';
export const CONTINUE = 'continue';

/** One earlier turn of the conversation: what the user asked, and the answer when known. */
export interface HistoryTurn {
  user_query: string;
  response?: string;
}

/** Spec behaviour 1: `$continue_answer` becomes `continue`; any other query is returned unchanged. */
export const processQuery = (query: string): string => (query.trim() === CONTINUE_ANSWER ? CONTINUE : query);

/** A few-shot example: a question and the answer wanted for it. */
export interface Example {
  user_query: string;
  response: string;
}

/** The model the caller chose and its settings; a catalog default when `id` is absent. */
export interface ModelChoice {
  id?: string;
  temperature?: number;
  maxTokens?: number;
  /** Everything the caller said about the model (REST's `model_info`), handed back by get_sources. */
  info?: Record<string, unknown>;
}

/**
 * A question to answer (generate_answer, stream_generate_answer), in the chat domain's terms: REST
 * maps the spec's body to it (rest/chat/wire.ts), the subgraph its AskInput. Who asks is `ctx.caller`.
 */
export interface Question {
  /** The tenant the question says it is for: the caller's own or 403 (REST: `request.user_cred.client.tenant_id`); theirs when absent. */
  tenantId?: string;
  /** As asked: `$continue_answer` continues `prevContext`. */
  query: string;
  prevContext?: string;
  history: HistoryTurn[];
  /** Files the user uploaded for this question. */
  files: string[];
  examples: Example[];
  /** The bot's instructions: the system prompt. */
  instructions?: string;
  /** The search text, when the caller worked it out (`gen_search_text`). */
  searchText?: string;
  model: ModelChoice;
  /** Functions the model may call: the answer then ends with finish_reason `tool_calls` and the calls. */
  tools?: ToolDefinition[];
}

/** get_sources: the question, and what the bot passed along that the answer hands back. */
export interface SourcesQuestion extends Omit<Question, 'instructions' | 'searchText'> {
  /** `bot_details.llm_data`: handed back with the context and the files read added. */
  llmData?: Record<string, unknown> & { upload_files?: unknown[] | null };
  /** `bot_details.num_new_uploads`; the files read when absent. */
  numNewUploads?: number;
}
