import { z } from 'zod';
import { UpstreamFailed } from '../../../shared/errors';
import type { ChatMessage, ChatRequest, FinishReason, ResponseFormat, ToolChoice } from '../../neutral';
import { unreadable } from '../../../shared/http/failures';
import type { StreamEvent, ToolCallDelta } from '../../upstream/chat-stream';
import { argumentsObject, resultObject, toolNameOf } from '../tool-calls';

/**
 * The Gemini API's generateContent wire: system messages become `systemInstruction`, the model's
 * own turns are role `model`, attachments `inlineData`, tool calls `functionCall` parts and tool
 * results `functionResponse` parts (consecutive results in one user turn, as Gemini wants them);
 * the answer's chunks (GenerateContentResponse) read back as stream events.
 */
type Part = Record<string, unknown>;

/**
 * Gemini 3 refuses a history whose function calls lack the thought signature it sent with them;
 * the neutral call does not carry one, so the first call of each model turn carries the value
 * Google documents for calls that come from elsewhere.
 */
export const NO_THOUGHT_SIGNATURE = 'skip_thought_signature_validator';

function partsOf(m: ChatMessage, messages: readonly ChatMessage[]): Part[] {
  // A result that names neither its call nor its tool (a Llama prompt's ipython turn) is the user's text.
  if (m.role === 'tool' && (m.toolCallId || m.toolName)) {
    const name = toolNameOf(m, messages);
    // Google's convention: a result that is no JSON object goes in `output`.
    return [{ functionResponse: { ...(m.toolCallId && { id: m.toolCallId }), name, response: resultObject(m.text) ?? { output: m.text } } }];
  }
  const media = (m.attachments ?? []).map((a) => ({ inlineData: { mimeType: a.mimeType, data: a.data } }));
  const calls = (m.toolCalls ?? []).map((c, i) => ({
    functionCall: { id: c.id, name: c.name, args: argumentsObject(c) }, ...(i === 0 && { thoughtSignature: NO_THOUGHT_SIGNATURE }),
  }));
  // Gemini refuses a content with no parts: a message with nothing else keeps its empty text.
  return [...(m.text || (!media.length && !calls.length) ? [{ text: m.text }] : []), ...media, ...calls];
}

function contentsOf(messages: readonly ChatMessage[]) {
  const contents: { role: 'user' | 'model'; parts: Part[] }[] = [];
  for (const m of messages.filter((x) => x.role !== 'system')) {
    const parts = partsOf(m, messages);
    if (parts.some((p) => p.functionResponse) && contents.at(-1)?.parts.some((p) => p.functionResponse)) contents.at(-1)!.parts.push(...parts);
    else contents.push({ role: m.role === 'assistant' ? 'model' : 'user', parts });
  }
  return contents;
}

const MODES = { auto: 'AUTO', none: 'NONE', required: 'ANY', tool: 'ANY' } as const;
const toolConfigOf = (c: ToolChoice) =>
  ({ functionCallingConfig: { mode: MODES[c.type], ...(c.type === 'tool' && { allowedFunctionNames: [c.name] }) } });

/** JSON answers: `application/json`, with the schema as JSON Schema (`responseJsonSchema`) for json_schema. */
const formatConfig = (f: ResponseFormat | undefined) => (!f || f.type === 'text' ? {}
  : { responseMimeType: 'application/json', ...(f.type === 'json_schema' && { responseJsonSchema: f.schema }) });

export function generateContentBody(req: ChatRequest) {
  const system = req.messages.filter((m) => m.role === 'system').map((m) => m.text).filter(Boolean);
  const config = {
    ...(req.maxTokens !== undefined ? { maxOutputTokens: req.maxTokens } : {}),
    ...(req.temperature !== undefined ? { temperature: req.temperature } : {}),
    ...(req.topP !== undefined ? { topP: req.topP } : {}),
    ...(req.stop?.length ? { stopSequences: req.stop } : {}),
    ...formatConfig(req.responseFormat),
  };
  // The tools' schemas as JSON Schema (`parametersJsonSchema`): OpenAI-style schemas pass as they are.
  const declarations = (req.tools ?? []).map((t) => ({
    name: t.name, ...(t.description !== undefined && { description: t.description }), ...(t.parameters && { parametersJsonSchema: t.parameters }),
  }));
  return {
    contents: contentsOf(req.messages),
    ...(system.length ? { systemInstruction: { parts: system.map((text) => ({ text })) } } : {}),
    ...(declarations.length ? { tools: [{ functionDeclarations: declarations }] } : {}),
    ...(req.toolChoice && declarations.length ? { toolConfig: toolConfigOf(req.toolChoice) } : {}),
    ...(Object.keys(config).length ? { generationConfig: config } : {}),
  };
}

const FILTERED = new Set(['SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'IMAGE_SAFETY', 'LANGUAGE']);
/** STOP and the others: stop; MAX_TOKENS: length; the safety family: content_filter. */
export const geminiFinish = (r: string): FinishReason => (r === 'MAX_TOKENS' ? 'length' : FILTERED.has(r) ? 'content_filter' : 'stop');

const Chunk = z.object({
  candidates: z.array(z.object({
    content: z.object({
      parts: z.array(z.object({
        text: z.string().optional(), thought: z.boolean().optional(),
        functionCall: z.object({ id: z.string().optional(), name: z.string(), args: z.record(z.string(), z.unknown()).optional() }).loose().optional(),
      }).loose()).optional(),
    }).loose().optional(),
    finishReason: z.string().optional(),
  }).loose()).optional(),
  promptFeedback: z.object({ blockReason: z.string().optional() }).loose().optional(),
  usageMetadata: z.object({
    promptTokenCount: z.number().optional(), candidatesTokenCount: z.number().optional(), thoughtsTokenCount: z.number().optional(),
  }).loose().optional(),
  error: z.object({ message: z.string().optional() }).loose().optional(),
});

/**
 * A reader of GenerateContentResponse chunks as stream events (thought parts are the model's
 * scratchpad, not its answer). Gemini sends each function call whole, in one part: each becomes
 * one tool-call piece, numbered across the chunks (a call without Gemini's `id` gets one later).
 */
export function geminiDecoder(vendor: string): (json: unknown) => StreamEvent {
  let calls = 0;
  return (json) => {
    const e = geminiEvent(json, vendor);
    const toolCalls = e.parts?.flatMap((p): ToolCallDelta[] => (p.functionCall
      ? [{ index: calls++, ...(p.functionCall.id && { id: p.functionCall.id }), name: p.functionCall.name, arguments: JSON.stringify(p.functionCall.args ?? {}) }]
      : []));
    return { text: e.text, finishReason: e.finishReason, usage: e.usage, ...(toolCalls?.length && { toolCalls }) };
  };
}

function geminiEvent(json: unknown, vendor: string) {
  const r = Chunk.safeParse(json);
  if (!r.success) throw unreadable(vendor, 'a chunk that is not a GenerateContentResponse');
  const { candidates, promptFeedback, usageMetadata: u, error } = r.data;
  if (error) throw new UpstreamFailed(`${vendor} failed midway${error.message ? `: ${error.message}` : ''}`, { code: 'upstream_error' });
  const candidate = candidates?.[0];
  const text = candidate?.content?.parts?.filter((p) => !p.thought).map((p) => p.text ?? '').join('');
  // A blocked prompt comes back with no candidate at all, only the reason.
  const finishReason = promptFeedback?.blockReason ? 'content_filter' : candidate?.finishReason ? geminiFinish(candidate.finishReason) : undefined;
  const usage = u ? {
    ...(u.promptTokenCount !== undefined ? { promptTokens: u.promptTokenCount } : {}),
    ...(u.candidatesTokenCount !== undefined || u.thoughtsTokenCount !== undefined
      ? { completionTokens: (u.candidatesTokenCount ?? 0) + (u.thoughtsTokenCount ?? 0) } : {}),
  } : undefined;
  return { text: text || undefined, finishReason, usage, parts: candidate?.content?.parts };
}
