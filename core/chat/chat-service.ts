import type { Logger } from 'pino';
import type { Caller } from '../shared/auth/caller';
import { leftBy } from '../shared/cancel';
import { BadRequest } from '../shared/errors';
import type { Ctx } from '../shared/context';
import type { ChatStream, ToolCall } from '../models/neutral';
import { CONTINUE, CONTINUE_ANSWER, processQuery, type HistoryTurn, type ModelChoice, type Question } from './conversation';
import { askingUser, type ChatCaller } from './credentials';
import type { AnswerModels, ModelHandle, Retrieval } from './ports';
import { buildPrompt, inlinePromptTokens, numberSources, type PromptTokens } from './prompt';
import { promptTexts } from '../models/prompt/prompt-texts';
import { limited, retrieve, type RetrievalLimits } from './retrieval';
import { cleanRewrite, planSearchText } from './search-text';
import type { AnswerChunk, AnswerSource, AnswerToolCall, ChatService } from './service';
import { sourcesResult } from './sources';
import type { Metrics } from '../shared/telemetry/metrics';
import { failed, inSpan, startSpan, traceFields, type Span, type Trace } from '../shared/telemetry/tracing';
import { answerMetrics } from './telemetry';

export interface ChatDeps {
  retrieval: Retrieval;
  models: AnswerModels;
  limits: RetrievalLimits & { rewriteMs: number };
  /** DECISIONS: the model when `model_info` names none. */
  defaultModel: string;
  /** How prompts are counted (prompt.ts); in the event loop when absent. */
  tokens?: PromptTokens;
  log?: Logger;
  /** Where answers are counted and timed (telemetry.ts); nothing is counted when absent. */
  metrics?: Metrics;
}

/** What an answer is built from, once everything that can be refused has been checked. */
interface Prepared {
  caller: Caller;
  model: ModelHandle;
  searchText: string;
  sources: AnswerSource[];
  answer: ChatStream;
}

/** The model's tool calls as the answer carries them (none: no field). */
const toolCallsOf = (calls: ToolCall[] | undefined): { tool_calls?: AnswerToolCall[] } =>
  calls?.length
    ? { tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) }
    : {};

export function createChatService(d: ChatDeps): ChatService {
  const modelOf = (choice: ModelChoice) => choice.id ?? d.defaultModel;
  const answered = answerMetrics(d.metrics);

  /** The standalone question, from the model, within its own time limit. */
  async function rewrite(
    model: ModelHandle,
    apiKey: string | undefined,
    messages: Parameters<AnswerModels['chat']>[1]['messages'],
    fallback: string,
    call: Ctx,
  ) {
    const text = await limited('rewriting the question', d.limits.rewriteMs, call.signal, async (signal) => {
      const s = await d.models.chat(
        model,
        { apiKey, messages, temperature: 0, maxTokens: 128, stream: false, route: 'chat.rewrite' },
        { ...call, signal },
      );
      let out = '';
      for await (const piece of s.pieces) out += piece;
      return out;
    });
    return cleanRewrite(text, fallback);
  }

  async function searchTextOf(
    input: { question: string; continuing: boolean; history: HistoryTurn[]; given?: string; prevContext?: string },
    model: ModelHandle | undefined,
    apiKey: string | undefined,
    call: Ctx,
  ): Promise<string> {
    const plan = planSearchText({ ...input, query: input.question, canRewrite: model !== undefined });
    return plan.kind === 'rewrite' ? rewrite(model!, apiKey, plan.messages, plan.fallback, call) : plan.text;
  }

  async function prepare(q: Question, ctx: Ctx<ChatCaller>, stream: boolean, trace: Trace): Promise<Prepared> {
    const caller = askingUser(ctx.caller, q.tenantId);
    const call: Ctx = { requestId: ctx.requestId, clientAddress: ctx.clientAddress, signal: ctx.signal, trace };
    const question = processQuery(q.query);
    const continuing = question === CONTINUE && q.query.trim() === CONTINUE_ANSWER;
    const apiKey = ctx.caller.modelKey;
    // Key and model first: a bad key or an unknown model is refused before any search work.
    const model = await d.models.open(apiKey, modelOf(q.model), call);
    const prevContext = continuing ? q.prevContext : undefined;
    const searchText = await searchTextOf(
      { question, continuing, history: q.history, given: q.searchText, prevContext },
      model,
      apiKey,
      call,
    );
    const found = await retrieve(d.retrieval, d.limits, { searchText, files: q.files }, { ...call, caller });
    const room = Math.min(q.model.maxTokens ?? model.maxOutputTokens ?? 1024, Math.floor(model.contextLength / 2));
    // The gateway counts the tools' definitions with the prompt (prompt-texts.ts): the messages get what they leave.
    const toolTokens = q.tools?.length
      ? await (d.tokens ?? inlinePromptTokens).count(promptTexts([], q.tools), model.contextLength, call.signal)
      : 0;
    if (toolTokens && toolTokens >= model.contextLength - room) {
      throw new BadRequest(
        `The tools' definitions take ${toolTokens >= model.contextLength ? 'more than ' : ''}${Math.min(toolTokens, model.contextLength)} tokens, ` +
          `over the ${model.contextLength - room} the model reads besides its answer.`,
        { code: 'context_length_exceeded' },
      );
    }
    const { messages, sources } = await buildPrompt(
      {
        instructions: q.instructions,
        examples: q.examples,
        history: q.history,
        prevContext,
        question,
        files: found.files,
        search: found.search,
      },
      numberSources(found.files, found.search),
      model.contextLength - room - toolTokens,
      d.tokens,
      call.signal,
    );
    const answer = await d.models.chat(
      model,
      {
        apiKey,
        messages,
        temperature: q.model.temperature,
        maxTokens: q.model.maxTokens,
        stream,
        route: stream ? 'chat.stream_generate_answer' : 'chat.generate_answer',
        ...(q.tools?.length && { tools: q.tools }),
      },
      call,
    );
    return { caller, model, searchText, sources, answer };
  }

  /**
   * The answer's chunks; the answer's span and metrics end with them (the last chunk read, a
   * failure midway: `error`, or the caller leaving: not an error of ours, the span says `cancelled`).
   */
  async function* chunks(
    p: Prepared,
    ctx: Ctx<ChatCaller>,
    opened: { span: Span; trace: Trace },
    start: bigint,
  ): AsyncGenerator<AnswerChunk> {
    const { span, trace } = opened;
    const chunk = (response: string, finish: AnswerChunk['finish_reason']): AnswerChunk => ({
      generated_search_text: p.searchText,
      response,
      finish_reason: finish,
    });
    let finish: AnswerChunk['finish_reason'];
    let calls: ToolCall[] | undefined;
    let ended = false;
    let ok = true;
    try {
      try {
        for await (const piece of p.answer.pieces) if (piece) yield chunk(piece, null);
        ({ finishReason: finish, toolCalls: calls } = await p.answer.done);
      } catch (err) {
        // The caller left (the model call was aborted for it): nobody reads on, nothing failed.
        if (leftBy(err, ctx.signal)) return;
        d.log?.warn(
          { err: (err as Error).message, requestId: ctx.requestId, model: p.model.id, ...traceFields(trace) },
          'chat: the model failed midway; the stream ends with finish_reason error',
        );
        failed(span, err);
        finish = 'error';
      }
      ok = finish !== 'error';
      // Whole once its last chunk is out, whether or not the reader asks for more.
      ended = true;
      yield { ...chunk('', finish), ...toolCallsOf(calls) };
    } finally {
      if (!ended) span.setAttribute('cancelled', true);
      span.end();
      answered?.(true, ok, start);
    }
  }

  return {
    // The span `chat answer` covers the whole answer: the search text, the retrieval and the model
    // call run in it (their spans are its children), a stream until its last chunk.
    generateAnswer: (input, ctx) => {
      const start = process.hrtime.bigint();
      return inSpan(ctx.trace, 'chat answer', { 'chat.stream': false }, async (_span, trace) => {
        let ok = false;
        try {
          const p = await prepare(input, ctx, false, trace);
          let response = '';
          // A whole answer that fails midway is the gateway's failure (502/504), not a partial answer.
          for await (const piece of p.answer.pieces) response += piece;
          const { finishReason, toolCalls } = await p.answer.done;
          ok = finishReason !== 'error';
          return { response, generated_search_text: p.searchText, finish_reason: finishReason, ...toolCallsOf(toolCalls) };
        } finally {
          // A caller who left is not a failure of ours (the HTTP metrics count it: 499).
          answered?.(false, ok || ctx.signal?.aborted === true, start);
        }
      });
    },
    async streamAnswer(input, ctx) {
      const start = process.hrtime.bigint();
      const { span, trace } = startSpan(ctx.trace, 'chat answer', { 'chat.stream': true });
      let p: Prepared;
      try {
        p = await prepare(input, ctx, true, trace);
      } catch (err) {
        failed(span, err);
        span.end();
        answered?.(true, ctx.signal?.aborted === true, start);
        throw err;
      }
      return { generatedSearchText: p.searchText, model: p.model.id, sources: p.sources, chunks: chunks(p, ctx, { span, trace }, start) };
    },
    async getSources(q, ctx) {
      const caller = askingUser(ctx.caller, q.tenantId);
      const call: Ctx = { requestId: ctx.requestId, clientAddress: ctx.clientAddress, signal: ctx.signal, trace: ctx.trace };
      const question = processQuery(q.query);
      const continuing = question === CONTINUE;
      const apiKey = ctx.caller.modelKey;
      // Without a key the follow-up cannot be rewritten by a model: the query is the search text.
      const model = apiKey !== undefined ? await d.models.open(apiKey, modelOf(q.model), call) : undefined;
      const searchText = await searchTextOf({ question, continuing, history: q.history, prevContext: q.prevContext }, model, apiKey, call);
      const found = await retrieve(d.retrieval, d.limits, { searchText, files: q.files }, { ...call, caller });
      return sourcesResult({
        question: q,
        asked: question,
        searchText,
        sources: numberSources(found.files, found.search),
        model: modelOf(q.model),
      });
    },
  };
}
