import type { Caller } from '../shared/auth/caller';
import type { Ctx } from '../shared/context';
import type { ChatMessage, ChatStream, ToolDefinition } from '../models/neutral';
import type { Passage } from '../search/types';

/**
 * What the chat proxy needs of the search service and the model gateway: their own services when
 * they run in this process, their REST paths when they run elsewhere (clients/chat-*.ts). Every call
 * acts as the user (search) or with the user's LM key (models), so tenancy, keys, limits, cache,
 * guardrails and usage are theirs to apply.
 */
export interface Retrieval {
  /** The tenant's passages best matching `query` (hybrid: full text and vectors), within `fileNames` when given. */
  passages(req: { query: string; limit: number; fileNames?: string[] }, ctx: Ctx<Caller>): Promise<Passage[]>;
}

/** A chat model the key may call, and how much it can read. */
export interface ModelHandle {
  id: string;
  contextLength: number;
  maxOutputTokens?: number;
}

export interface AnswerModels {
  /** Checks the key and the model: 401/403 for the key, 404 for an unknown model. */
  open(apiKey: string | undefined, modelId: string, ctx: Ctx): Promise<ModelHandle>;
  /** Starts the model's answer; resolves when the gateway accepted it (refusals and upstream failures throw). */
  chat(
    model: ModelHandle,
    req: {
      apiKey: string | undefined;
      messages: ChatMessage[];
      temperature?: number;
      maxTokens?: number;
      stream: boolean;
      route: string;
      tools?: ToolDefinition[];
    },
    ctx: Ctx,
  ): Promise<ChatStream>;
}
