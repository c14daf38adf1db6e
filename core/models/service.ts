import type { CallContext } from '../shared/context';
import type { CatalogModel } from './catalog';
import type { CacheOutcome } from './cache';
import type { UsageTotals } from './usage';
import type { ChatRequest, ChatStream, Transcript } from './chat';
import type { KeyOptions } from './key-options';
import type { ApiKey } from './keys';

/** The caller of a gateway route: its key (tenant, allowed models, limits) and the options it sent with it. */
export interface KeyCaller {
  key: ApiKey;
  options: KeyOptions;
}

/**
 * Every metered call names its caller, its model and the route it came by (`azure.chat.completions`,
 * `gemini.generateContent`, ...). The caller is what the service's `authenticate` returned: a
 * KeyCaller in process, the header itself for a client of a gateway elsewhere (clients/models/index.ts).
 */
export interface Metered<C = KeyCaller> {
  caller: C;
  model: CatalogModel;
  route: string;
}

/** A chat call: the provider-neutral request (its model is the catalog's, named in Metered). */
export type ChatInput<C = KeyCaller> = Metered<C> & Omit<ChatRequest, 'model'>;

/** A chat answer on its way: pieces, then how it ended; whether it came from the cache; what the guard did. */
export type ChatCall = ChatStream & { cache: CacheOutcome; guard: string };

/**
 * The model gateway's interface (see docs/service-conventions.md). Each metered call checks the
 * key's limits (429), the model's kind and input kinds (400), and records itself in usage, refused
 * or not, once it has ended.
 */
export interface ModelsService<C = KeyCaller> {
  /** The `api-key` header's key and options: 401 when missing, unknown or revoked; 400 for a bad option. */
  authenticate(header: string | undefined): C;
  /** The catalog models the key may use. */
  listModels(input: { caller: C }, call?: CallContext): Promise<CatalogModel[]>;
  /** A model the key may call: 404 unknown or deactivated, 403 not allowed for the key. */
  model(input: { caller: C; id: string }): Promise<CatalogModel>;
  /**
   * A chat answer from the model's provider, streamed: 400 when the prompt is over the model's
   * context length or holds a part the model cannot take; 502/504 when the upstream fails before
   * answering. The caller's signal aborts the upstream call.
   */
  chat(input: ChatInput<C>, call?: CallContext): Promise<ChatCall>;
  /** Vectors for texts from an embedding model: 400 for a model of another kind or an input over its context length. */
  embed(input: Metered<C> & { inputs: string[]; dimensions?: number }, call?: CallContext): Promise<{ vectors: Float32Array[]; promptTokens: number }>;
  /** One picture from an image model (`n` = 1 is the route's to check). */
  generateImage(input: Metered<C> & { prompt: string; size?: string; quality?: string; style?: string }, call?: CallContext):
    Promise<{ b64: string; mimeType: string; revisedPrompt?: string }>;
  /** The text of an audio file from a transcription model. */
  transcribe(input: Metered<C> & { audio: Buffer; filename: string; mimeType: string; temperature?: number; language?: string; prompt?: string }, call?: CallContext):
    Promise<Transcript>;
  /** Records a call the route refused before it reached the model (a malformed body, `n` != 1). */
  refused(input: Metered<C> & { error: unknown; startedAt: number }): void;
  /** The key's tenant's usage between two instants, in all and per model. */
  usage(input: { caller: C; from: Date; to: Date }, call?: CallContext): Promise<{ totals: UsageTotals; byModel: (UsageTotals & { model: string })[] }>;
}
