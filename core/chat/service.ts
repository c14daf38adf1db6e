import type { Ctx } from '../shared/context';
import type { FinishReason } from '../models/neutral';

/** A call the model made, in OpenAI's shape (what a bot already parses): its id, and the function's name and JSON arguments. */
export interface AnswerToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}
import type { Question, SourcesQuestion } from './conversation';
import type { ChatCaller } from './credentials';

/** One piece of an answer, as the spec's stream carries it; the last has `finish_reason` set. */
export interface AnswerChunk {
  generated_search_text: string;
  response: string;
  finish_reason: FinishReason | null;
  /** On the last chunk when the model called tools (finish_reason `tool_calls`). */
  tool_calls?: AnswerToolCall[];
}

/** The whole answer of `generate_answer`. */
export interface Answer {
  response: string;
  generated_search_text: string;
  finish_reason: FinishReason;
  /** When the model called tools (finish_reason `tool_calls`). */
  tool_calls?: AnswerToolCall[];
}

/** A passage the prompt cited as `[citation]`: from the tenant's documents, or from a file the user uploaded. */
export interface AnswerSource {
  citation: number;
  objectId: string;
  title: string;
  fileName: string | null;
  /** `search` (semantic search) or `InputFile` (the user's upload). */
  category: 'search' | 'InputFile';
  score: number;
  text: string;
}

/** A streamed answer once the prompt is built: what grounds it, which model speaks, and its chunks. */
export interface AnswerStream {
  generatedSearchText: string;
  model: string;
  sources: AnswerSource[];
  /** Ends with a chunk whose `finish_reason` is set (`error` when the model failed midway); leaving early aborts the model call. */
  chunks: AsyncIterable<AnswerChunk>;
}

/** `get_sources`: the spec's `sources` dict and the success flag. */
export interface SourcesResult {
  sources: {
    gen_search_text: string;
    model_info: Record<string, unknown>;
    examples: { user_query: string; response: string }[];
    query: string;
    all_input_texts: Record<string, string>;
    llm_data: Record<string, unknown>;
    history_prompt: { user_query: string; response?: string }[];
    num_new_uploads: number;
    /** Extension: the passages behind `all_input_texts`, with their citation numbers. */
    citations: { citation: number; object_id: string; title: string; file_name: string | null; source_category: string; score: number }[];
  };
  success: true;
}

/**
 * The chat proxy's interface (docs/service-conventions.md): a question in, the spec's results out,
 * asked by `ctx.caller` (the user's verified token and their LM key, established by the edge as
 * services/chat declares). The user needs `search:read` and a question naming a tenant must name
 * theirs (403); the key is the model gateway's to check (401/403). Everything that can be refused is
 * refused before the first chunk: a stream that starts is a 200.
 */
export interface ChatService {
  generateAnswer(input: Question, ctx: Ctx<ChatCaller>): Promise<Answer>;
  streamAnswer(input: Question, ctx: Ctx<ChatCaller>): Promise<AnswerStream>;
  getSources(input: SourcesQuestion, ctx: Ctx<ChatCaller>): Promise<SourcesResult>;
}
