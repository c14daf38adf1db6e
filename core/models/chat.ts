/**
 * Provider-neutral model calls: what every route's request becomes and every provider answers.
 * Routes translate their vendor's wire format to and from these; providers translate them to and
 * from their upstream's. Chat answers stream as text pieces.
 */

/** A non-text part of a message (an image, a document, a video), base64 as the vendors send it. */
export interface Attachment {
  /** The catalog input kind it needs: `image`, `Docs` or `Video`. */
  kind: 'image' | 'Docs' | 'Video';
  /** `image/png`, `application/pdf`, `video/mp4`, ... */
  mimeType: string;
  /** Base64 bytes. */
  data: string;
  /** A document's name (Bedrock documents carry one). */
  name?: string;
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  /** The text of the message (its text parts joined). */
  text: string;
  /** Its other parts, in order after the text; checked against the model's input kinds. */
  attachments?: Attachment[];
}

export interface ChatRequest {
  /** The upstream's model or deployment name. */
  model: string;
  messages: ChatMessage[];
  maxTokens?: number;
  temperature?: number;
  topP?: number;
  stop?: string[];
  /**
   * Whether the caller reads the answer as it comes. False: a provider may ask its upstream for the
   * whole answer at once (one read instead of one per piece); absent: the provider streams.
   */
  stream?: boolean;
  /** The prompt's tokens as the gateway counted them (texts only), when it did: a provider need not count them again. */
  promptTokens?: number;
}

export type FinishReason = 'stop' | 'length' | 'content_filter' | 'error';

export interface ChatUsage {
  promptTokens: number;
  completionTokens: number;
}

/**
 * A provider's answer: text pieces as they come, then how it ended. `pieces` throws a
 * PlatformError (UpstreamFailed / UpstreamTimeout) when the upstream fails midway.
 */
export interface ChatStream {
  pieces: AsyncIterable<string>;
  /** Settles after the last piece (finishReason `error` when the upstream failed midway). */
  done: Promise<{ finishReason: FinishReason; usage: ChatUsage }>;
}

export interface EmbedRequest {
  model: string;
  inputs: string[];
  dimensions?: number;
}

export interface ImageRequest {
  model: string;
  prompt: string;
  /** `1024x1024`, ... */
  size?: string;
  quality?: string;
  style?: string;
}

export interface TranscriptionRequest {
  model: string;
  audio: Buffer;
  filename: string;
  mimeType: string;
  temperature?: number;
  language?: string;
  prompt?: string;
}

export interface TranscriptSegment {
  id: number;
  start: number;
  end: number;
  text: string;
}

export interface Transcript {
  text: string;
  language?: string;
  /** Seconds. */
  duration?: number;
  segments?: TranscriptSegment[];
}

/**
 * What one upstream can do. Every method resolves once the upstream has accepted the call (its
 * status and headers arrived), so a refusal or a failure before the first byte is thrown from the
 * call itself (retried where safe) and can still become a 4xx/502/504 status; `signal` aborts the
 * upstream request.
 */
export interface ModelProvider {
  chat?(req: ChatRequest, signal?: AbortSignal): Promise<ChatStream>;
  embed?(req: EmbedRequest, signal?: AbortSignal): Promise<{ vectors: Float32Array[]; promptTokens?: number }>;
  generateImage?(req: ImageRequest, signal?: AbortSignal): Promise<{ b64: string; mimeType: string; revisedPrompt?: string }>;
  transcribe?(req: TranscriptionRequest, signal?: AbortSignal): Promise<Transcript>;
}
