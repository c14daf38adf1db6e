import type { ChatCaller } from '../../core/chat/credentials';
import type { AnswerStream, ChatService } from '../../core/chat/service';
import { CallerLeft } from '../../core/shared/cancel';
import { UpstreamFailed } from '../../core/shared/errors';
import type { FinishReason } from '../../core/models/neutral';
import type { CallOf } from '../../edge/graphql/calls';
import type { GraphContext } from '../../edge/graphql/context';
import { questionOf, sourcesQuestionOf, type AskInput } from './args';
import { chunkView, FINISH, sourcesView, sourceView } from './views';

/**
 * The chat proxy's subgraph. The caller is the request's user (`Authorization: Bearer`, or
 * graphql-ws's connection_init payload) with its `api-key` (`callOf`, as services/chat declares);
 * AskInput is mapped to the chat domain's question (./args), so the service applies the same rules
 * as for REST (tenant 403, key 401, model 404, bounds) and they leave with the same codes. Answers
 * carry their sources and model as references: the search and models subgraphs resolve titles and
 * catalog fields.
 */

type Args = { input: AskInput };
type ChunkView = ReturnType<typeof chunkView>;

/**
 * The answer's chunks as GraphQL values, sources and model on the first, each with the text so far. `return()` (the client
 * completed the subscription, or its socket closed) aborts the model call at once, even while a
 * chunk is awaited: an async generator would queue the return behind that wait, and a stalled model
 * would then never be stopped.
 */
function subscription(stream: AnswerStream, stop: AbortController): AsyncIterableIterator<ChunkView> {
  const chunks = stream.chunks[Symbol.asyncIterator]();
  let first = true;
  let soFar = '';
  return {
    async next() {
      const r = await chunks.next();
      if (r.done) return { done: true, value: undefined };
      soFar += r.value.response;
      const view = chunkView(r.value, soFar, first ? stream : undefined);
      first = false;
      return { done: false, value: view };
    },
    async return() {
      // Why the stream stopped early: the subscriber completed it or went away.
      stop.abort(new CallerLeft('The subscriber left before the answer was complete'));
      // Ends the service's generator once its pending chunk settles (the abort makes it settle).
      chunks.return?.(undefined).catch(() => undefined);
      return { done: true, value: undefined };
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

export const chatResolvers = (chat: ChatService, callOf: CallOf<ChatCaller>) => ({
  Query: {
    sources: async (_: unknown, { input }: Args, ctx: GraphContext) => {
      const question = sourcesQuestionOf(input);
      return sourcesView(await chat.getSources(question, await callOf(ctx)));
    },
  },
  Mutation: {
    /** Streamed and collected, so the answer comes with the sources and model it was written from. */
    generateAnswer: async (_: unknown, { input }: Args, ctx: GraphContext) => {
      const question = questionOf(input);
      // The HTTP client leaving (ctx.signal) stops the model call, as a subscriber leaving does.
      const stream = await chat.streamAnswer(question, await callOf(ctx, { signal: ctx.signal }));
      let response = '';
      let finish: FinishReason = 'stop';
      for await (const c of stream.chunks) {
        response += c.response;
        if (c.finish_reason) finish = c.finish_reason;
      }
      // As REST generate_answer: a whole answer that fails midway is the model's failure, not a partial answer.
      if (finish === 'error') throw new UpstreamFailed('The model failed while answering', { code: 'upstream_error' });
      return {
        response,
        generatedSearchText: stream.generatedSearchText,
        finishReason: FINISH[finish],
        model: { id: stream.model },
        sources: stream.sources.map(sourceView),
      };
    },
  },
  Subscription: {
    answerStream: {
      subscribe: async (_: unknown, { input }: Args, ctx: GraphContext) => {
        const question = questionOf(input);
        const stop = new AbortController();
        // Stopped by the subscriber completing it (return()), or by its transport's end (ctx.signal:
        // a socket that closes, an HTTP client that leaves), also before the first chunk.
        const signal = ctx.signal ? AbortSignal.any([stop.signal, ctx.signal]) : stop.signal;
        const stream = await chat.streamAnswer(question, await callOf(ctx, { signal }));
        return subscription(stream, stop);
      },
      resolve: (chunk: ChunkView) => chunk,
    },
  },
});
