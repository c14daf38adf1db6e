import type { Trace } from '../shared/telemetry/tracing';

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
  /** The text of the message (its text parts joined); a tool result's text for role `tool`. */
  text: string;
  /** Its other parts, in order after the text; checked against the model's input kinds. */
  attachments?: Attachment[];
  /** An assistant turn that called tools: the calls it made (its text may be empty). */
  toolCalls?: ToolCall[];
  /** A `tool` message: the call it answers (ToolCall.id). */
  toolCallId?: string;
  /** A `tool` message: the called tool's name (Gemini's functionResponse names it; found from toolCallId when absent). */
  toolName?: string;
}

/**
 * A function the model may call, in every vendor's terms: OpenAI `tools[].function`, Anthropic
 * `tools[]`, Gemini `functionDeclarations[]`, Bedrock `toolConfig.tools[].toolSpec`.
 */
export interface ToolDefinition {
  name: string;
  description?: string;
  /** Its arguments as a JSON Schema object (`{"type":"object","properties":{...}}`). */
  parameters?: Record<string, unknown>;
  /** OpenAI's `strict` (the arguments must match the schema exactly). */
  strict?: boolean;
}

/** Whether and which tool to call: OpenAI auto/none/required/function, Anthropic auto/none/any/tool, Gemini AUTO/NONE/ANY, Bedrock auto/any/tool. */
export type ToolChoice = { type: 'auto' } | { type: 'none' } | { type: 'required' } | { type: 'tool'; name: string };

/** A call the model made: its id (vendors without ids get one), the tool's name, its arguments as JSON text. */
export interface ToolCall {
  id: string;
  name: string;
  /** A JSON object's text, as OpenAI carries it (`{"city":"Paris"}`). */
  arguments: string;
}

/** Structured output: OpenAI `response_format`, Gemini `responseMimeType`/`responseSchema`. */
export type ResponseFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; name: string; schema: Record<string, unknown>; description?: string; strict?: boolean };

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
  /** Functions the model may call; its calls come back in `done.toolCalls` with finishReason `tool_calls`. */
  tools?: ToolDefinition[];
  toolChoice?: ToolChoice;
  responseFormat?: ResponseFormat;
}

export type FinishReason = 'stop' | 'length' | 'content_filter' | 'tool_calls' | 'error';

export interface ChatUsage {
  promptTokens: number;
  completionTokens: number;
  /**
   * Of `promptTokens`, those the vendor read from its prompt cache, where it says so (OpenAI/Azure
   * `prompt_tokens_details.cached_tokens`, Gemini `cachedContentTokenCount`, Bedrock
   * `cacheReadInputTokens`): billed at the model's cached-input price (docs/spend.md).
   */
  cachedTokens?: number;
}

/** How an answer ended: its finish reason, its token counts, and the tools it called (finishReason `tool_calls`). */
export interface ChatDone {
  finishReason: FinishReason;
  usage: ChatUsage;
  /** The calls the model made, whole (arguments complete), in order. */
  toolCalls?: ToolCall[];
}

/**
 * A provider's answer: text pieces as they come, then how it ended. `pieces` throws a
 * PlatformError (UpstreamFailed / UpstreamTimeout) when the upstream fails midway. Tool calls are
 * not pieces: they arrive whole in `done` (an upstream's argument deltas are gathered by
 * upstream/chat-stream.ts), and each route writes them in its vendor's stream events before its
 * finish event, so a streaming client sees them as its SDK expects.
 */
export interface ChatStream {
  pieces: AsyncIterable<string>;
  /** Settles after the last piece (finishReason `error` when the upstream failed midway). */
  done: Promise<ChatDone>;
}

export interface EmbedRequest {
  model: string;
  /** The texts (token-id inputs decoded, for a provider that does not take them; none when `tokenIds` is given). */
  inputs: string[];
  /** The inputs as token ids, as the caller sent them, to a provider that takes them (`takesTokenIds`). */
  tokenIds?: (readonly number[])[];
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
 * upstream request, which belongs to `trace` (the model call's span: its client span is that span's child).
 */
export interface ModelProvider {
  /** Its `embed` takes token ids (EmbedRequest.tokenIds) as they came, as the OpenAI wire does; others get them decoded. */
  takesTokenIds?: boolean;
  chat?(req: ChatRequest, signal?: AbortSignal, trace?: Trace): Promise<ChatStream>;
  embed?(req: EmbedRequest, signal?: AbortSignal, trace?: Trace): Promise<{ vectors: Float32Array[]; promptTokens?: number }>;
  generateImage?(
    req: ImageRequest,
    signal?: AbortSignal,
    trace?: Trace,
  ): Promise<{ b64: string; mimeType: string; revisedPrompt?: string }>;
  transcribe?(req: TranscriptionRequest, signal?: AbortSignal, trace?: Trace): Promise<Transcript>;
}
