import type { CallContext } from '../context';
import type { CatalogModel } from './catalog';
import type { CacheOutcome } from './cache';
import type { UsageTotals } from './usage';
import type { ChatMessage, ChatStream } from './chat';
import type { KeyOptions } from './key-options';
import type { ApiKey } from './keys';

/** The caller of a gateway route: its key (tenant, allowed models, limits) and the options it sent with it. */
export interface KeyCaller {
  key: ApiKey;
  options: KeyOptions;
}

/** The model gateway's interface (grows with its routes; see docs/service-conventions.md). */
export interface ModelsService {
  /** The `api-key` header's key and options: 401 when missing, unknown or revoked; 400 for a bad option. */
  authenticate(header: string | undefined): KeyCaller;
  /** The catalog models the key may use. */
  listModels(input: { caller: KeyCaller }, call?: CallContext): Promise<CatalogModel[]>;
  /** A model the key may call: 404 unknown or deactivated, 403 not allowed for the key. */
  model(input: { caller: KeyCaller; id: string }): CatalogModel;
  /**
   * A chat answer from the model's provider, streamed: 400 when the prompt is over the model's
   * context length. The caller's signal aborts the upstream call.
   */
  chat(input: { caller: KeyCaller; model: CatalogModel; messages: ChatMessage[]; maxTokens?: number; temperature?: number }, call?: CallContext): Promise<ChatStream & { cache: CacheOutcome; guard: string }>;
  /** Records one call (usage and cost), after it ended. */
  recordUsage(input: { caller: KeyCaller; model: CatalogModel; route: string; status: number; startedAt: number; tokensIn: number; tokensOut: number;
    wordsSent: number; wordsReceived: number; cache: string; guard: string }): void;
  /** The key's tenant's usage between two instants, in all and per model. */
  usage(input: { caller: KeyCaller; from: Date; to: Date }, call?: CallContext): Promise<{ totals: UsageTotals; byModel: (UsageTotals & { model: string })[] }>;
  /** Vectors for texts from an embedding model: 400 for a model of another kind or an input over its context length. */
  embed(input: { caller: KeyCaller; model: CatalogModel; inputs: string[] }, call?: CallContext): Promise<{ vectors: Float32Array[]; promptTokens: number }>;
}
