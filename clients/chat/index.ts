import type { AnswerChunk, AnswerSource, AnswerStream, Answer, ChatService, SourcesResult } from '../../core/chat/service';
import type { CallMeta } from '../../core/shared/context';
import { httpClient, type HttpClientOptions, type RequestOptions } from '../shared/http';
import { answerBody, groundsOf, sourcesBody } from './wire';

const P = '/api';

/** Credentials travel in the body: only the request id, the caller's signal and the trace go with the call. */
const callOf = (ctx: CallMeta): RequestOptions => ({ requestId: ctx.requestId, signal: ctx.signal, trace: ctx.trace });

type Citation = SourcesResult['sources']['citations'][number];

/**
 * The cited passages' texts out of `llm_data.context`, which holds them as `[n] <label>\n<text>`
 * blocks joined by blank lines (core/chat/sources.ts): each found by its header, in order, so a
 * blank line inside a passage does not split it.
 */
function passagesOf(context: string, citations: Citation[]): AnswerSource[] {
  const header = (c: Citation) => `[${c.citation}] ${c.title || c.file_name || c.object_id}\n`;
  let at = 0;
  const starts = citations.map((c) => {
    const i = context.indexOf(header(c), at);
    at = i < 0 ? at : i + header(c).length;
    return i;
  });
  return citations.map((c, k) => {
    const from = starts[k] < 0 ? -1 : starts[k] + header(c).length;
    const next = starts.slice(k + 1).find((s) => s >= 0);
    const text = from < 0 ? '' : context.slice(from, next === undefined ? undefined : next - 2);
    return {
      citation: c.citation,
      objectId: c.object_id,
      title: c.title,
      fileName: c.file_name,
      category: c.source_category === 'InputFile' ? 'InputFile' : 'search',
      score: c.score,
      text,
    };
  });
}

/**
 * The chat proxy over its REST paths (`/api`), for a deployment where it runs elsewhere. The spec's
 * stream carries the answer's pieces and its search text, not its sources or model: a stream here
 * also asks `get_sources` for the same request (same question, history, files, model and key, so
 * the same search and the same passages) and reads them from its answer. Refusals come back as the
 * in-process service's errors, before the first chunk; leaving the chunks early closes the
 * connection, which stops the model call on the other side.
 */
export function chatClient(opts: HttpClientOptions): ChatService {
  const http = httpClient({ timeoutMs: 300_000, retries: 0, ...opts });
  return {
    generateAnswer: (q, ctx) => http.request<Answer>('POST', `${P}/generate_answer`, { json: answerBody(q, ctx.caller), ...callOf(ctx) }),
    getSources: (q, ctx) => http.request<SourcesResult>('POST', `${P}/get_sources`, { json: sourcesBody(q, ctx.caller), ...callOf(ctx) }),
    async streamAnswer(q, ctx): Promise<AnswerStream> {
      const stream = http.stream<AnswerChunk>('POST', `${P}/stream_generate_answer`, { json: answerBody(q, ctx.caller), ...callOf(ctx) });
      const sources = http.request<SourcesResult>('POST', `${P}/get_sources`, {
        json: sourcesBody(groundsOf(q), ctx.caller),
        ...callOf(ctx),
      });
      sources.catch(() => undefined); // awaited below, or dropped when the stream is refused first
      // The first chunk comes once everything that can refuse the call has accepted it.
      const first = await stream.next();
      let grounds: SourcesResult;
      try {
        grounds = await sources;
      } catch (err) {
        await stream.return(undefined);
        throw err;
      }
      const s = grounds.sources;
      async function* chunks(): AsyncGenerator<AnswerChunk> {
        try {
          for (let r = first; !r.done; r = await stream.next()) yield r.value;
        } finally {
          await stream.return(undefined);
        }
      }
      return {
        generatedSearchText: first.done ? s.gen_search_text : first.value.generated_search_text,
        model: typeof s.model_info.modelId === 'string' ? s.model_info.modelId : '',
        sources: passagesOf(typeof s.llm_data.context === 'string' ? s.llm_data.context : '', s.citations),
        chunks: chunks(),
      };
    },
  };
}
