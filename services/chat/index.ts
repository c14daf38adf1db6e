import { z } from 'zod';
import { openChatCore, type ChatCore } from '../../core/chat';
import { chatCredentials, type ChatCaller } from '../../core/chat/credentials';
import { offloadPromptTokens } from '../../core/chat/prompt';
import { isActive } from '../../core/models/catalog/catalog';
import { defaultOffload } from '../../core/models/offload/offload';
import { CHAT_PREFIX } from '../../rest/chat/prefix';
import { readSchemaFile } from '../../edge/graphql/sdl';
import { defineService } from '../shared/module';
import type { ModelsInstance } from '../models';
import type { SearchInstance } from '../search';

import { modelsPeer } from './peers/models';
import { searchPeer } from './peers/search';

// The faces (REST routes, subgraph resolvers, REST client) load on first use: a CLI command opens the core alone.
const rest = () => require('../../rest/chat') as typeof import('../../rest/chat');
const subgraph = () => require('../../subgraphs/chat') as typeof import('../../subgraphs/chat');
const client = () => require('../../clients/chat') as typeof import('../../clients/chat');

const ms = (fallback: number) => z.coerce.number().int().min(10).max(600_000).default(fallback);

/** The chat proxy's environment variables. */
const Settings = z.object({
  /** DECISIONS: the model when `model_info` names none. */
  CHAT_DEFAULT_MODEL: z.string().min(1).default('local-chat'),
  /** Milliseconds the semantic search may take (504 past it). */
  CHAT_SEARCH_TIMEOUT_MS: ms(5000),
  /** Milliseconds reading the uploaded files may take (504 past it). */
  CHAT_EXTRACT_TIMEOUT_MS: ms(10_000),
  /** Milliseconds the model may take to rewrite a follow-up as a standalone question (504 past it). */
  CHAT_REWRITE_TIMEOUT_MS: ms(30_000),
  /** Passages of the tenant's documents given to the model. */
  CHAT_SOURCES: z.coerce.number().int().min(0).max(50).default(5),
  /** Passages of the uploaded files given to the model. */
  CHAT_FILE_PASSAGES: z.coerce.number().int().min(1).max(100).default(8),
  /** The search service's base URL when it runs elsewhere; default PUBLIC_URL. */
  SEARCH_URL: z.url().optional(),
  /** The model gateway's base URL when it runs elsewhere; default PUBLIC_URL. */
  MODELS_URL: z.url().optional(),
});

export interface ChatInstance extends ChatCore {
  close(): void;
}

/** Grounded answers under `/api`: search and model gateway in process when they run here, over REST when not; the `chat` subgraph. */
export const createChatModule = () =>
  defineService<ChatInstance, typeof Settings, ChatCaller>({
    name: 'chat',
    title: 'Chat proxy',
    prefix: CHAT_PREFIX,
    audience: 'chat',
    config: Settings,
    uses: ['search', 'models'],
    open: (deps, { admin }) => {
      const { config } = deps;
      const search = deps.peer<SearchInstance>('search');
      const models = deps.peer<ModelsInstance>('models');
      const fallback = models?.catalog.find((m) => m.id === config.CHAT_DEFAULT_MODEL);
      if (models && !admin && (!fallback || fallback.kind !== 'chat' || !isActive(fallback))) {
        deps.log.warn(
          `chat: CHAT_DEFAULT_MODEL ${config.CHAT_DEFAULT_MODEL} is not an active chat model of the catalog; answers whose model_info names no model are refused (404)`,
        );
      }
      // Long prompts are counted in the gateway's worker threads, or in a thread of the proxy's own when the gateway runs elsewhere.
      const offload = models ? undefined : defaultOffload(1);
      const core = openChatCore({
        log: deps.log,
        metrics: deps.metrics,
        defaultModel: config.CHAT_DEFAULT_MODEL,
        tokens: offloadPromptTokens(models?.offload ?? offload!),
        retrieval: searchPeer(search, config.SEARCH_URL ?? config.PUBLIC_URL),
        models: modelsPeer(models, config.MODELS_URL ?? config.PUBLIC_URL),
        limits: {
          searchMs: config.CHAT_SEARCH_TIMEOUT_MS,
          extractMs: config.CHAT_EXTRACT_TIMEOUT_MS,
          rewriteMs: config.CHAT_REWRITE_TIMEOUT_MS,
          sources: config.CHAT_SOURCES,
          filePassages: config.CHAT_FILE_PASSAGES,
        },
      });
      return { ...core, close: () => void offload?.close() };
    },
    rest: (core, deps) => rest().chatRest(core.service, deps.revocations),
    credentials: () => chatCredentials,
    subgraph: {
      sdl: () => readSchemaFile('chat/chat.graphql'),
      resolvers: (core, edge) => subgraph().chatResolvers(core.service, edge.callOf),
    },
    client: (opts) => client().chatClient(opts),
  });
