import type { Logger } from 'pino';
import type { Caller } from '../shared/auth/caller';
import type { TokenVerifier } from '../shared/auth/verifier';
import type { CallContext } from '../shared/context';
import type { ChatStream } from '../models/chat';
import { CONTINUE, CONTINUE_ANSWER, historyOf, kvpOf, processQuery, queryOf, uploadedFiles } from './conversation';
import { userCaller } from './credentials';
import type { GenerateAnswerBody, GetSourcesBody } from './inputs';
import type { AnswerModels, ModelHandle, Retrieval } from './ports';
import { buildPrompt, numberSources, type PromptTokens } from './prompt';
import { limited, retrieve, type RetrievalLimits } from './retrieval';
import { cleanRewrite, planSearchText } from './search-text';
import type { AnswerChunk, AnswerSource, ChatService } from './service';
import { sourcesResult } from './sources';

export interface ChatDeps {
  verifier: TokenVerifier;
  retrieval: Retrieval;
  models: AnswerModels;
  limits: RetrievalLimits & { rewriteMs: number };
  /** DECISIONS: the model when `model_info` names none. */
  defaultModel: string;
  /** How prompts are counted (prompt.ts); in the event loop when absent. */
  tokens?: PromptTokens;
  log?: Logger;
}

/** What an answer is built from, once everything that can be refused has been checked. */
interface Prepared {
  caller: Caller;
  model: ModelHandle;
  searchText: string;
  sources: AnswerSource[];
  answer: ChatStream;
}

export function createChatService(d: ChatDeps): ChatService {
  const modelOf = (info: GenerateAnswerBody['model_info']) => info?.modelId ?? d.defaultModel;

  /** The standalone question, from the model, within its own time limit. */
  async function rewrite(model: ModelHandle, apiKey: string | undefined, messages: Parameters<AnswerModels['chat']>[1]['messages'], fallback: string, call: CallContext) {
    const text = await limited('rewriting the question', d.limits.rewriteMs, call.signal, async (signal) => {
      const s = await d.models.chat(model, { apiKey, messages, temperature: 0, maxTokens: 128, stream: false, route: 'chat.rewrite' }, { ...call, signal });
      let out = '';
      for await (const piece of s.pieces) out += piece;
      return out;
    });
    return cleanRewrite(text, fallback);
  }

  async function searchTextOf(input: { question: string; continuing: boolean; history: ReturnType<typeof historyOf>; given?: string; prevContext?: string },
    model: ModelHandle | undefined, apiKey: string | undefined, call: CallContext): Promise<string> {
    const plan = planSearchText({ ...input, query: input.question, canRewrite: model !== undefined });
    return plan.kind === 'rewrite' ? rewrite(model!, apiKey, plan.messages, plan.fallback, call) : plan.text;
  }

  async function prepare(body: GenerateAnswerBody, call: CallContext, stream: boolean): Promise<Prepared> {
    const caller = await userCaller(d.verifier, body.request.user_cred);
    const raw = queryOf(body.query, body.request);
    const question = processQuery(raw);
    const continuing = question === CONTINUE && raw.trim() === CONTINUE_ANSWER;
    const apiKey = body.api_key ?? undefined;
    const info = body.model_info;
    // Key and model first: a bad key or an unknown model is refused before any search work.
    const model = await d.models.open(apiKey, modelOf(info), call);
    const history = historyOf(body.history_prompt);
    const prevContext = continuing ? body.request.prev_context ?? undefined : undefined;
    const searchText = await searchTextOf({ question, continuing, history, given: body.gen_search_text ?? undefined, prevContext }, model, apiKey, call);
    const found = await retrieve(d.retrieval, d.limits, { searchText, files: uploadedFiles(body.request) }, { ...call, caller });
    const room = Math.min(info?.max_tokens ?? model.maxOutputTokens ?? 1024, Math.floor(model.contextLength / 2));
    const { messages, sources } = await buildPrompt({
      instructions: body.prompt ?? undefined, examples: kvpOf(body.request).examples ?? [], history, prevContext, question, files: found.files, search: found.search,
    }, numberSources(found.files, found.search), model.contextLength - room, d.tokens, call.signal);
    const answer = await d.models.chat(model, {
      apiKey, messages, temperature: info?.temperature ?? undefined, maxTokens: info?.max_tokens ?? undefined, stream, route: stream ? 'chat.stream_generate_answer' : 'chat.generate_answer',
    }, call);
    return { caller, model, searchText, sources, answer };
  }

  async function* chunks(p: Prepared, requestId?: string): AsyncGenerator<AnswerChunk> {
    const chunk = (response: string, finish: AnswerChunk['finish_reason']): AnswerChunk => ({ generated_search_text: p.searchText, response, finish_reason: finish });
    let finish: AnswerChunk['finish_reason'];
    try {
      for await (const piece of p.answer.pieces) if (piece) yield chunk(piece, null);
      finish = (await p.answer.done).finishReason;
    } catch (err) {
      d.log?.warn({ err: (err as Error).message, requestId, model: p.model.id }, 'chat: the model failed midway; the stream ends with finish_reason error');
      finish = 'error';
    }
    yield chunk('', finish);
  }

  return {
    async generateAnswer(body, call = {}) {
      const p = await prepare(body, call, false);
      let response = '';
      // A whole answer that fails midway is the gateway's failure (502/504), not a partial answer.
      for await (const piece of p.answer.pieces) response += piece;
      const { finishReason } = await p.answer.done;
      return { response, generated_search_text: p.searchText, finish_reason: finishReason };
    },
    async streamAnswer(body, call = {}) {
      const p = await prepare(body, call, true);
      return { generatedSearchText: p.searchText, model: p.model.id, sources: p.sources, chunks: chunks(p, call.requestId) };
    },
    async getSources(body: GetSourcesBody, call = {}) {
      const caller = await userCaller(d.verifier, body.request.user_cred);
      const question = processQuery(queryOf(undefined, body.request));
      const continuing = question === CONTINUE;
      const history = historyOf(body.chat_hist);
      const apiKey = body.api_key ?? undefined;
      // Without a key the follow-up cannot be rewritten by a model: the query is the search text.
      const model = apiKey !== undefined ? await d.models.open(apiKey, modelOf(body.model_info), call) : undefined;
      const searchText = await searchTextOf({ question, continuing, history, prevContext: body.request.prev_context ?? undefined }, model, apiKey, call);
      const files = uploadedFiles(body.request);
      const found = await retrieve(d.retrieval, d.limits, { searchText, files }, { ...call, caller });
      return sourcesResult({ body, question, searchText, history, files, sources: numberSources(found.files, found.search), model: modelOf(body.model_info) });
    },
  };
}
