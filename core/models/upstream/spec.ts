import type { CatalogModel } from '../catalog/catalog';
import type { ChatRequest, EmbedRequest, FinishReason, ImageRequest, ModelProvider, Transcript, TranscriptionRequest } from '../neutral';
import type { Offload } from '../offload/offload';
import type { StreamEvent } from './chat-stream';
import type { UpstreamHttp } from './http';

/**
 * A vendor's provider as data (the shape Portkey keeps its providers in): where each kind of call
 * goes, which headers carry the credential, how the neutral call becomes the vendor's request and
 * how the vendor's answer (whole, or the events of its stream) becomes the neutral answer. The
 * models service's upstream/ folder does the rest, once for every vendor: it sends, retries, times
 * out, decodes the stream the provider names and maps the vendor's statuses (http-provider.ts).
 */

/** Where the catalog's credential variables are read: given by the composition root (services/models), never read from the process here. */
export type Env = Readonly<Record<string, string | undefined>>;

/** What an adapter gets: the environment (credentials are named by the catalog, read from here) and the pooled HTTP client. */
export interface ProviderDeps {
  env: Env;
  http: UpstreamHttp;
  /** Worker threads for the built-in model's work on long prompts. */
  offload?: Offload;
}

/** An adapter: a catalog model's upstream in, the calls it can serve out. */
export type ProviderFactory = (model: CatalogModel, deps: ProviderDeps) => ModelProvider;

/** One exchange of JSON (or of a multipart form): where it goes, what it sends, how its answer reads back. */
export interface Exchange<Req, Out> {
  /** Throws 502 `upstream_misconfigured` when the catalog lacks what the address needs. */
  url(req: Req): string;
  /** A JSON body, or a FormData one (sent as multipart/form-data). */
  body(req: Req): object;
  /** The parsed answer (502 `upstream_bad_response` when it is not the vendor's). */
  answer(json: unknown, req: Req): Out;
}

/** The decoders the upstream folder has for a streamed answer's body. */
export type StreamFraming = 'sse';

export interface ChatExchange {
  url(req: ChatRequest, stream: boolean): string;
  body(req: ChatRequest): object;
  /** A streamed answer: its framing, and a reader of each event's JSON (made per call, so it may count across events). */
  stream: {
    framing: StreamFraming;
    decoder(): (json: unknown) => StreamEvent;
    /** How an answer finished that ended with `data: [DONE]` without naming a finish reason (none: it was cut short). */
    doneMeans?: FinishReason;
  };
  /** A reader of the answer read whole (`stream: false`), as its one event. */
  whole(): (json: unknown) => StreamEvent;
}

export interface EmbedAnswer {
  vectors: Float32Array[];
  promptTokens?: number;
}
export interface ImageAnswer {
  b64: string;
  mimeType: string;
  revisedPrompt?: string;
}

/** A vendor spoken over HTTP, as data: its name, its credential's headers, and an exchange per kind of call it serves. */
export interface HttpApi {
  /** Names the upstream in error messages (`Azure OpenAI`, `Gemini`, ...). */
  vendor: string;
  /** The auth headers, read at each call (a rotated credential needs no restart); throws 502 when the credential is missing. */
  auth(this: void): Record<string, string>;
  /** Its embeddings take token ids as they came (EmbedRequest.tokenIds). */
  takesTokenIds?: boolean;
  chat?: ChatExchange;
  embed?: Exchange<EmbedRequest, EmbedAnswer>;
  generateImage?: Exchange<ImageRequest, ImageAnswer>;
  transcribe?: Exchange<TranscriptionRequest, Transcript>;
}
