import type { ChatMessage, ChatRequest, ResponseFormat, ToolChoice } from '../../neutral';
import { argumentsObject, resultObject, toolNameOf } from '../tool-calls';
import type { Content, GenerateContentBody, GenerationConfig, Part, ToolConfig } from './wire';

/**
 * The neutral call as the Gemini API's generateContent body: system messages become
 * `systemInstruction`, the model's own turns are role `model`, attachments `inlineData`, tool calls
 * `functionCall` parts and tool results `functionResponse` parts (consecutive results in one user
 * turn, as Gemini wants them).
 */

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
    return [
      { functionResponse: { ...(m.toolCallId && { id: m.toolCallId }), name, response: resultObject(m.text) ?? { output: m.text } } },
    ];
  }
  const media = (m.attachments ?? []).map((a) => ({ inlineData: { mimeType: a.mimeType, data: a.data } }));
  const calls = (m.toolCalls ?? []).map((c, i) => ({
    functionCall: { id: c.id, name: c.name, args: argumentsObject(c) },
    ...(i === 0 && { thoughtSignature: NO_THOUGHT_SIGNATURE }),
  }));
  // Gemini refuses a content with no parts: a message with nothing else keeps its empty text.
  return [...(m.text || (!media.length && !calls.length) ? [{ text: m.text }] : []), ...media, ...calls];
}

const isResult = (p: Part) => 'functionResponse' in p;

function contentsOf(messages: readonly ChatMessage[]) {
  const contents: Content[] = [];
  for (const m of messages.filter((x) => x.role !== 'system')) {
    const parts = partsOf(m, messages);
    if (parts.some(isResult) && contents.at(-1)?.parts.some(isResult)) contents.at(-1)!.parts.push(...parts);
    else contents.push({ role: m.role === 'assistant' ? 'model' : 'user', parts });
  }
  return contents;
}

const MODES = { auto: 'AUTO', none: 'NONE', required: 'ANY', tool: 'ANY' } as const;
const toolConfigOf = (c: ToolChoice): ToolConfig => ({
  functionCallingConfig: { mode: MODES[c.type], ...(c.type === 'tool' && { allowedFunctionNames: [c.name] }) },
});

/** JSON answers: `application/json`, with the schema as JSON Schema (`responseJsonSchema`) for json_schema. */
const formatConfig = (f: ResponseFormat | undefined): GenerationConfig =>
  !f || f.type === 'text'
    ? {}
    : { responseMimeType: 'application/json', ...(f.type === 'json_schema' && { responseJsonSchema: f.schema }) };

export function generateContentBody(req: ChatRequest): GenerateContentBody {
  const system = req.messages
    .filter((m) => m.role === 'system')
    .map((m) => m.text)
    .filter(Boolean);
  const config: GenerationConfig = {
    ...(req.maxTokens !== undefined ? { maxOutputTokens: req.maxTokens } : {}),
    ...(req.temperature !== undefined ? { temperature: req.temperature } : {}),
    ...(req.topP !== undefined ? { topP: req.topP } : {}),
    ...(req.stop?.length ? { stopSequences: req.stop } : {}),
    ...formatConfig(req.responseFormat),
  };
  // The tools' schemas as JSON Schema (`parametersJsonSchema`): OpenAI-style schemas pass as they are.
  const declarations = (req.tools ?? []).map((t) => ({
    name: t.name,
    ...(t.description !== undefined && { description: t.description }),
    ...(t.parameters && { parametersJsonSchema: t.parameters }),
  }));
  return {
    contents: contentsOf(req.messages),
    ...(system.length ? { systemInstruction: { parts: system.map((text) => ({ text })) } } : {}),
    ...(declarations.length ? { tools: [{ functionDeclarations: declarations }] } : {}),
    ...(req.toolChoice && declarations.length ? { toolConfig: toolConfigOf(req.toolChoice) } : {}),
    ...(Object.keys(config).length ? { generationConfig: config } : {}),
  };
}
