import type { Logger } from 'pino';
import { createChatService } from './chat-service';
import type { AnswerModels, Retrieval } from './ports';
import type { PromptTokens } from './prompt';
import type { RetrievalLimits } from './retrieval';
import type { ChatService } from './service';
import type { Metrics } from '../shared/telemetry/metrics';

export interface ChatCoreOptions {
  retrieval: Retrieval;
  models: AnswerModels;
  limits: RetrievalLimits & { rewriteMs: number };
  defaultModel?: string;
  /** How prompts are counted: the model gateway's worker threads when it runs in this process. */
  tokens?: PromptTokens;
  log?: Logger;
  /** Where answers are counted and timed (telemetry.ts); nothing is counted when absent. */
  metrics?: Metrics;
}

export interface ChatCore {
  service: ChatService;
}

/** The chat proxy's core: no storage of its own; it orchestrates the search service and the model gateway. */
export const openChatCore = (o: ChatCoreOptions): ChatCore => ({
  service: createChatService({ ...o, defaultModel: o.defaultModel ?? 'local-chat' }),
});
