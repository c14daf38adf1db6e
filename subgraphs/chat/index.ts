import type { ChatCaller } from '../../core/chat/credentials';
import type { AnswerStream, ChatService } from '../../core/chat/service';
import { UpstreamFailed } from '../../core/shared/errors';
import type { FinishReason } from '../../core/models/neutral';
import type { CallOf } from '../../edge/graphql/calls';
import type { GraphContext } from '../../edge/graphql/context';
import { stoppable, subscriberStop } from '../shared/subscription';
import { questionOf, sourcesQuestionOf, type AskInput } from './args';
import { FINISH } from '../shared/finish';
import { chunkView, sourcesView, sourceView } from './views';

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

/** The answer's chunks as GraphQL values, sources and model on the first, each with the text so far. */
function subscription(stream: AnswerStream, stop: AbortController): AsyncIterableIterator<ChunkView> {
  let first = true;
  let soFar = '';
  return stoppable(stream.chunks, stop, (chunk) => {
    soFar += chunk.response;
    const view = chunkView(chunk, soFar, first ? stream : undefined);
    first = false;
    return view;
  });
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
        const { stop, signal } = subscriberStop(ctx);
        const stream = await chat.streamAnswer(question, await callOf(ctx, { signal }));
        return subscription(stream, stop);
      },
      resolve: (chunk: ChunkView) => chunk,
    },
  },
});
