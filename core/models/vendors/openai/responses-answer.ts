import { PlatformError } from '../../../shared/errors';
import { opaqueId } from '../../../shared/ids';
import type { ChatStream, ChatUsage, FinishReason, ToolCall } from '../../neutral';
import type { ResponsesRequest } from './responses-request';

/**
 * OpenAI's Responses API answers: the `response` object and its stream events, as OpenAI writes
 * them and as the openai SDK and @ai-sdk/openai read (and validate) them. Output: a `message` item
 * holding the text (when there is text, or nothing else), then one `function_call` item per call.
 */
export interface ResponseMeta {
  /** `resp_...` */
  id: string;
  /** Epoch seconds. */
  createdAt: number;
  model: string;
  /** What the response object echoes back. */
  request: ResponsesRequest;
}

type Status = 'in_progress' | 'completed' | 'incomplete' | 'failed';

// Type aliases, not interfaces: the stored-responses code takes them as JSON records (an interface has no index signature).
export type OutputText = { type: 'output_text'; annotations: []; logprobs: []; text: string };
/** An output item: the answer's text, or one call of a function (the request reads both back: responses-request.ts). */
export type OutputItem = OutputMessage | OutputFunctionCall;
export type OutputMessage = { id: string; type: 'message'; status: Status; role: 'assistant'; content: OutputText[] };
export type OutputFunctionCall = { id: string; type: 'function_call'; status: Status; arguments: string; call_id: string; name: string };

const INCOMPLETE: Partial<Record<FinishReason, string>> = { length: 'max_output_tokens', content_filter: 'content_filter' };
const statusOf = (f: FinishReason): Status => (f === 'error' ? 'failed' : INCOMPLETE[f] ? 'incomplete' : 'completed');

export const responseUsage = (u: ChatUsage) => ({
  input_tokens: u.promptTokens,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: u.completionTokens,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: u.promptTokens + u.completionTokens,
});

/** The response object, with the request's settings echoed as OpenAI echoes them; in progress until it has a finish reason. */
export function responseObject(meta: ResponseMeta, s: { output: OutputItem[]; finishReason?: FinishReason; usage?: ChatUsage }) {
  const r = meta.request;
  const reason = s.finishReason && INCOMPLETE[s.finishReason];
  const status = s.finishReason ? statusOf(s.finishReason) : 'in_progress';
  return {
    id: meta.id,
    object: 'response',
    created_at: meta.createdAt,
    status,
    background: false,
    error: status === 'failed' ? { code: 'server_error', message: 'The model failed midway' } : null,
    incomplete_details: reason ? { reason } : null,
    instructions: r.instructions ?? null,
    max_output_tokens: r.max_output_tokens ?? null,
    model: meta.model,
    output: s.output,
    parallel_tool_calls: r.parallel_tool_calls ?? true,
    previous_response_id: r.previous_response_id ?? null,
    reasoning: { effort: null, summary: null },
    service_tier: 'default',
    store: r.store ?? true,
    temperature: r.temperature ?? 1,
    text: { format: r.text?.format ?? { type: 'text' } },
    tool_choice: r.tool_choice ?? 'auto',
    tools: (r.tools ?? []).map((t) => ({
      type: 'function',
      name: t.name,
      description: t.description ?? null,
      parameters: t.parameters ?? null,
      strict: t.strict ?? true,
    })),
    top_p: r.top_p ?? 1,
    truncation: 'disabled',
    usage: s.usage ? responseUsage(s.usage) : null,
    user: r.user ?? null,
    metadata: r.metadata ?? {},
  };
}

export type ResponseObject = ReturnType<typeof responseObject>;

const messageItem = (id: string, text: string | undefined, status: Status): OutputMessage => ({
  id,
  type: 'message',
  status,
  role: 'assistant',
  content: text === undefined ? [] : [{ type: 'output_text', annotations: [], logprobs: [], text }],
});

const callItem = (c: ToolCall, status: Status, args = c.arguments): OutputFunctionCall => ({
  id: `fc_${opaqueId()}`,
  type: 'function_call',
  status,
  arguments: args,
  call_id: c.id,
  name: c.name,
});

/** The output of a whole answer. */
export function responseOutput(a: { text: string; finishReason: FinishReason; toolCalls?: ToolCall[] }): OutputItem[] {
  const calls = a.toolCalls ?? [];
  const status = statusOf(a.finishReason) === 'incomplete' ? 'incomplete' : 'completed';
  const message = a.text || !calls.length ? [messageItem(`msg_${opaqueId()}`, a.text, status)] : [];
  return [...message, ...calls.map((c) => callItem(c, 'completed'))];
}

export type ResponseEvent = { type: string; sequence_number: number } & Record<string, unknown>;

/**
 * The events of a streamed answer, numbered from 0: response.created and .in_progress; the message
 * item (added, its output_text part, each delta, the text's and part's done, the item's done); each
 * function call (added, its arguments' delta and done, the item's done); response.completed (or
 * .incomplete, named by the response's status), once `keep` has kept the response (a stored one).
 * An upstream failure midway, or one to keep the response, is OpenAI's `error` event, and the stream ends there.
 */
export async function* responseStreamEvents(
  meta: ResponseMeta,
  stream: ChatStream,
  keep?: (response: ResponseObject) => Promise<void>,
): AsyncGenerator<ResponseEvent> {
  let seq = 0;
  const ev = (type: string, fields: Record<string, unknown>): ResponseEvent => ({ type, sequence_number: seq++, ...fields });
  const failed = (err: unknown) => {
    const exposed = err instanceof PlatformError && err.expose;
    return ev('error', {
      code: (exposed && err.code) || 'server_error',
      message: exposed ? err.message : 'Internal server error',
      param: null,
    });
  };
  const output: OutputItem[] = [];
  yield ev('response.created', { response: responseObject(meta, { output: [] }) });
  yield ev('response.in_progress', { response: responseObject(meta, { output: [] }) });
  const msgId = `msg_${opaqueId()}`;
  const at = { item_id: msgId, output_index: 0, content_index: 0 };
  let text: string | undefined;
  const openMessage = function* () {
    text = '';
    yield ev('response.output_item.added', { output_index: 0, item: messageItem(msgId, undefined, 'in_progress') });
    yield ev('response.content_part.added', { ...at, part: { type: 'output_text', annotations: [], logprobs: [], text: '' } });
  };
  try {
    for await (const delta of stream.pieces) {
      if (text === undefined) yield* openMessage();
      text += delta;
      yield ev('response.output_text.delta', { ...at, delta, logprobs: [] });
    }
  } catch (err) {
    yield failed(err);
    return;
  }
  const { finishReason, usage, toolCalls = [] } = await stream.done;
  const status = statusOf(finishReason) === 'incomplete' ? 'incomplete' : 'completed';
  if (text === undefined && !toolCalls.length) yield* openMessage();
  if (text !== undefined) {
    const part = { type: 'output_text', annotations: [], logprobs: [], text };
    yield ev('response.output_text.done', { ...at, text, logprobs: [] });
    yield ev('response.content_part.done', { ...at, part });
    output.push(messageItem(msgId, text, status));
    yield ev('response.output_item.done', { output_index: 0, item: output[0] });
  }
  for (const call of toolCalls) {
    const output_index = output.length;
    const added = callItem(call, 'in_progress', '');
    const item_id = added.id;
    yield ev('response.output_item.added', { output_index, item: added });
    yield ev('response.function_call_arguments.delta', { item_id, output_index, delta: call.arguments });
    yield ev('response.function_call_arguments.done', { item_id, output_index, name: call.name, arguments: call.arguments });
    output.push({ ...added, status: 'completed', arguments: call.arguments });
    yield ev('response.output_item.done', { output_index, item: output[output_index] });
  }
  const response = responseObject(meta, { output, finishReason, usage });
  try {
    await keep?.(response);
  } catch (err) {
    yield failed(err);
    return;
  }
  yield ev(`response.${response.status}`, { response });
}
