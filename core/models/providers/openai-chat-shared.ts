import { BadRequest } from '../../shared/errors';
import type { Attachment, ChatMessage, ChatRequest } from '../chat';

/**
 * The OpenAI chat-completions request as the gateway sends it upstream (Azure OpenAI and the
 * OpenAI-compatible servers: Ollama, vLLM, llama.cpp) and as its REST clients send it to the
 * gateway; the answer is read back by upstream/openai-stream.ts.
 */
type Part = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } } | { type: 'file'; file: { filename: string; file_data: string } };

function partOf(a: Attachment, vendor: string): Part {
  const dataUrl = `data:${a.mimeType};base64,${a.data}`;
  if (a.kind === 'image') return { type: 'image_url', image_url: { url: dataUrl } };
  if (a.kind === 'Docs') return { type: 'file', file: { filename: a.name ?? 'document', file_data: dataUrl } };
  throw new BadRequest(`${vendor} chat completions take no video input`, { code: 'unsupported_input' });
}

// A `tool` message needs a tool_call_id the neutral message does not carry: it goes up as the user's turn.
const roleOf = (r: ChatMessage['role']) => (r === 'tool' ? 'user' : r);

export function openAiMessages(messages: readonly ChatMessage[], vendor: string) {
  return messages.map((m) => ({
    role: roleOf(m.role),
    content: m.attachments?.length ? [...(m.text ? [{ type: 'text', text: m.text } as Part] : []), ...m.attachments.map((a) => partOf(a, vendor))] : m.text,
  }));
}

/**
 * The request, streamed unless the caller reads the answer whole (`stream: false`); `maxTokensField`
 * is `max_completion_tokens` for Azure (its reasoning models refuse `max_tokens`).
 */
export function chatBody(req: ChatRequest, vendor: string, opts: { maxTokensField: 'max_tokens' | 'max_completion_tokens'; model?: string }) {
  return {
    ...(opts.model ? { model: opts.model } : {}),
    messages: openAiMessages(req.messages, vendor),
    ...(req.maxTokens !== undefined ? { [opts.maxTokensField]: req.maxTokens } : {}),
    ...(req.temperature !== undefined ? { temperature: req.temperature } : {}),
    ...(req.topP !== undefined ? { top_p: req.topP } : {}),
    ...(req.stop?.length ? { stop: req.stop } : {}),
    ...(req.stream === false ? {} : { stream: true, stream_options: { include_usage: true } }),
  };
}
