import { createHash } from 'node:crypto';
import { queryWords, wordsOf } from '../../../shared/text/words';
import type { ChatMessage, ChatRequest, ResponseFormat, ToolCall, ToolDefinition } from '../../neutral';

/**
 * How the built-in offline chat model (`local-chat`) uses tools and structured output, so every
 * route's tool round trip and JSON mode can be exercised with nothing upstream. Deterministic:
 * - it calls a tool when the last message is the user's and a tool's name or description shares a
 *   content word with it (the best match), or when `toolChoice` is `required` (the best, else the
 *   first) or names one; never when `toolChoice` is `none` or no tool matches;
 * - the arguments fill the tool's JSON schema: a string with the question's content words not in
 *   the tool's name (an `enum`'s first value), a number with the question's first number (else 0),
 *   a boolean false, an array empty, an object its own properties; required properties only, or
 *   every property when none is marked required;
 * - after tool results it answers from them: the sentences that answer the question, else each
 *   result quoted with its tool's name;
 * - `json_object` answers `{"answer": "<text>"}`; `json_schema` a value of that schema whose first
 *   string property holds the answer.
 */

const nameWords = (name: string) => wordsOf(name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/[_\-.]+/g, ' '));

type Schema = {
  type?: unknown;
  properties?: Record<string, Schema>;
  required?: unknown;
  enum?: unknown[];
  items?: Schema;
  default?: unknown;
};

function score(tool: ToolDefinition, question: Set<string>): number {
  let n = 0;
  for (const w of new Set([...nameWords(tool.name), ...wordsOf(tool.description ?? '')])) if (question.has(w)) n++;
  return n;
}

/** The tool to call for this request, if any. */
export function chosenTool(req: Pick<ChatRequest, 'tools' | 'toolChoice' | 'messages'>): ToolDefinition | undefined {
  const tools = req.tools ?? [];
  const choice = req.toolChoice ?? { type: 'auto' };
  const last = req.messages.at(-1);
  if (!tools.length || choice.type === 'none' || last?.role !== 'user') return undefined;
  if (choice.type === 'tool') return tools.find((t) => t.name === choice.name);
  const question = new Set(queryWords(last.text));
  const ranked = tools.map((t, i) => ({ t, i, s: score(t, question) })).sort((a, b) => b.s - a.s || a.i - b.i);
  if (ranked[0].s > 0 || choice.type === 'required') return ranked[0].t;
  return undefined;
}

/** A value of the schema, built from the question (see above). */
function valueOf(schema: Schema | undefined, text: string, exclude: Set<string>, depth = 0): unknown {
  const type = Array.isArray(schema?.type) ? (schema.type as unknown[]).find((t) => t !== 'null') : schema?.type;
  if (Array.isArray(schema?.enum) && schema.enum.length) return schema.enum[0];
  if (type === 'number' || type === 'integer') {
    const n = /-?\d+(?:\.\d+)?/.exec(text)?.[0];
    return n === undefined ? 0 : type === 'integer' ? Math.trunc(Number(n)) : Number(n);
  }
  if (type === 'boolean') return false;
  if (type === 'array') return [];
  if (type === 'object' || schema?.properties) {
    if (depth > 8) return {};
    const props = schema?.properties ?? {};
    const required = Array.isArray(schema?.required) ? (schema.required as string[]) : Object.keys(props);
    return Object.fromEntries(required.filter((k) => k in props).map((k) => [k, valueOf(props[k], text, exclude, depth + 1)]));
  }
  if (type === 'null') return null;
  return (
    contentWords(text)
      .filter((w) => !exclude.has(w.toLowerCase()))
      .join(' ') || text.trim()
  );
}

/** The question's content words as written (`Paris`, not `paris`), each once. */
function contentWords(text: string): string[] {
  const wanted = new Set(queryWords(text));
  const seen = new Set<string>();
  return (text.match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => {
    const k = w.toLowerCase();
    if (!wanted.has(k) || seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** The call local-chat makes: an id stable for the same request (so a cached answer and a fresh one agree). */
export function toolCallFor(tool: ToolDefinition, question: string): ToolCall {
  const args = JSON.stringify(
    valueOf(tool.parameters ?? { type: 'object', properties: {} }, question, new Set(nameWords(tool.name))) ?? {},
  );
  const id = `call_${createHash('sha256').update(`${tool.name}\n${args}`).digest('hex').slice(0, 24)}`;
  return { id, name: tool.name, arguments: args };
}

/** Tool results answered plainly when no sentence of them answers the question (JSON results, numbers). */
export function toolResultsAnswer(messages: readonly ChatMessage[]): string {
  const calls = new Map(messages.flatMap((m) => m.toolCalls ?? []).map((c) => [c.id, c.name]));
  const results = messages.slice(messages.findLastIndex((m) => m.role !== 'tool') + 1);
  return results.map((m) => `${m.toolName ?? calls.get(m.toolCallId ?? '') ?? 'The tool'} returned: ${m.text.trim()}`).join('\n');
}

/** The answer in the asked format: as is for text, else a JSON value holding it. */
export function formatted(format: ResponseFormat | undefined, answer: string): string {
  if (!format || format.type === 'text') return answer;
  if (format.type === 'json_object') return JSON.stringify({ answer });
  let placed = false;
  const fill = (schema: Schema | undefined, depth: number): unknown => {
    const type = Array.isArray(schema?.type) ? (schema.type as unknown[]).find((t) => t !== 'null') : schema?.type;
    if (!placed && (type === 'string' || (type === undefined && !schema?.properties)) && !schema?.enum) {
      placed = true;
      return answer;
    }
    if ((type === 'object' || schema?.properties) && depth < 8) {
      const props = schema?.properties ?? {};
      return Object.fromEntries(Object.keys(props).map((k) => [k, fill(props[k], depth + 1)]));
    }
    return valueOf(schema, '', new Set(), depth);
  };
  return JSON.stringify(fill(format.schema, 0));
}
