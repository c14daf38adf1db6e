/**
 * Provider-neutral chat: what every route's request becomes and every provider answers. Routes
 * translate their vendor's wire format to and from these; providers stream text pieces.
 */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  /** The text of the message (other parts are checked against the model's input kinds, then set aside). */
  text: string;
}

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  maxTokens?: number;
  temperature?: number;
}

export type FinishReason = 'stop' | 'length' | 'content_filter' | 'error';

export interface ChatUsage {
  promptTokens: number;
  completionTokens: number;
}

/** A provider's answer: text pieces as they come, then how it ended. */
export interface ChatStream {
  pieces: AsyncIterable<string>;
  /** Settles after the last piece. */
  done: Promise<{ finishReason: FinishReason; usage: ChatUsage }>;
}

export interface ChatProvider {
  chat(req: ChatRequest, signal?: AbortSignal): ChatStream;
}
