import type { Ctx } from '../shared/context';
import type { CatalogModel } from './catalog/catalog';
import type { CacheOutcome } from './answers/cache';
import type { UsageTotals } from './usage/usage';
import type { ChatMessage, ChatRequest, ChatStream, ImageRequest, ToolDefinition, Transcript, TranscriptionRequest } from './neutral';
import type { KeyOptions } from './keys/key-options';
import type { ApiKey } from './keys/keys';
import type { RouteOverride } from './routing/route-header';

/** The caller of a models route: its key (tenant, allowed models, limits) and the options it sent with it. */
export interface KeyCaller {
  key: ApiKey;
  options: KeyOptions;
  /** Its `x-platform-route` header's routing override (core/models/routing/route-header.ts), when it sent one. */
  route?: RouteOverride;
}

/**
 * Every metered call names its model and the route it came by (`azure.chat.completions`,
 * `gemini.generateContent`, ...); its caller is `ctx.caller`: the KeyCaller the edge established
 * from the LM key in process, the header itself for a client of a gateway elsewhere (clients/models).
 */
export interface Metered {
  model: CatalogModel;
  route: string;
}

/**
 * A metered method's fields, given as they are (a caller in process), or read from a wire format
 * (a vendor body, GraphQL arguments) by `read`, which the call runs first: a request its reading
 * refuses (a malformed body, `n` != 1) is a refused call, recorded in usage like any other.
 */
export type Given<F> = F | { read(): F | Promise<F> };

/** The provider-neutral chat request (its model is the catalog's, named in Metered). */
export type ChatFields = Omit<ChatRequest, 'model'>;
export type EmbedFields = { inputs: string[] | (readonly number[])[]; dimensions?: number };
export type ImageFields = Omit<ImageRequest, 'model'>;
export type TranscribeFields = Omit<TranscriptionRequest, 'model'>;
export type CountFields = { messages: ChatMessage[]; tools?: ToolDefinition[] };

/** A chat call: its model and route, and its request. */
export type ChatInput = Metered & Given<ChatFields>;

/** A chat answer on its way: pieces, then how it ended; whether it came from the cache; what the guard did. */
export type ChatCall = ChatStream & {
  cache: CacheOutcome;
  guard: string;
  /** `<model>@<deployment>` that answered (the `x-platform-deployment` header); absent for a cached answer. */
  deployment?: string;
};

/**
 * The models service's interface (see docs/service-conventions.md): every method acts as `ctx.caller`,
 * the key its edge established (the module declares it: the `api-key` header, or where a vendor's
 * SDK puts it). Each metered call (chat, embed, generateImage, transcribe, countTokens) runs the
 * one pipeline (pipeline.ts): its input read (`Given`), the key's limits (429), the model's kind and
 * input kinds (400), the call, and a usage record of it, refused or not, once it has ended.
 */
export interface ModelsService<C = KeyCaller> {
  /** The catalog models the key may use. */
  listModels(input: Record<string, never>, ctx: Ctx<C>): Promise<CatalogModel[]>;
  /** A model the key may call: 404 unknown or deactivated, 403 not allowed for the key. */
  model(input: { id: string }, ctx: Ctx<C>): Promise<CatalogModel>;
  /**
   * A chat answer from the model's provider, streamed: 400 when the prompt is over the model's
   * context length or holds a part the model cannot take; 502/504 when the upstream fails before
   * answering. The caller's signal aborts the upstream call.
   */
  chat(input: ChatInput, ctx: Ctx<C>): Promise<ChatCall>;
  /**
   * Vectors for texts, or for token ids (cl100k_base's, as OpenAI's clients send them: token-ids.ts),
   * from an embedding model: 400 for a model of another kind, an input over its context length, or
   * an id that is no token.
   */
  embed(input: Metered & Given<EmbedFields>, ctx: Ctx<C>): Promise<{ vectors: Float32Array[]; promptTokens: number }>;
  /** One picture from an image model (`n` = 1 is the route's to check). */
  generateImage(input: Metered & Given<ImageFields>, ctx: Ctx<C>): Promise<{ b64: string; mimeType: string; revisedPrompt?: string }>;
  /** The text of an audio file from a transcription model. */
  transcribe(input: Metered & Given<TranscribeFields>, ctx: Ctx<C>): Promise<Transcript>;
  /**
   * A prompt's tokens as the gateway counts them (core/models/tokens.ts: the messages as a chat call
   * counts its prompt, plus the tools' definitions and the calls' arguments as JSON), for a model
   * the key may use. No model is called: admitted under the key's limits (429) and recorded in
   * usage as a call with no tokens, which costs nothing.
   */
  countTokens(input: Metered & Given<CountFields>, ctx: Ctx<C>): Promise<{ tokens: number }>;
  /** The key's tenant's usage between two instants, in all and per model. */
  usage(input: { from: Date; to: Date }, ctx: Ctx<C>): Promise<{ totals: UsageTotals; byModel: (UsageTotals & { model: string })[] }>;
}
