import type { CatalogModel } from '../../core/models/catalog/catalog';
import type { ChatDone } from '../../core/models/neutral';
import type { ChatCall, KeyCaller, ModelsService } from '../../core/models/service';
import { leftBy } from '../../core/shared/cancel';
import type { CallOf } from '../../edge/graphql/calls';
import type { GraphContext } from '../../edge/graphql/context';
import { FINISH } from '../shared/finish';
import { stoppable, subscriberStop } from '../shared/subscription';
import { chatFields, modelView, usageView, type ChatInputArgs } from './views';

/**
 * `Subscription.chatStream`: a chat call of the models service streamed as ChatChunk events, as the
 * REST routes stream it (`stream: true`, the same pipeline: limits, guard, cache, usage recorded
 * when the stream ends). Refusals come before the first event, as the `chat` mutation's; the
 * subscriber leaving (completing, or its transport ending) stops the model call and is recorded
 * as a caller who left (499).
 */

export type ChatChunkView = ReturnType<typeof chunkOf>;

/** One event: the next piece, the text so far, the model on the first, how it ended and its tokens on the last. */
function chunkOf(call: ChatCall, content: string, soFar: string, model: CatalogModel | undefined, end?: Partial<ChatDone>) {
  return {
    content,
    contentSoFar: soFar,
    finishReason: end?.finishReason ? FINISH[end.finishReason] : null,
    usage: end?.usage ? usageView(end.usage) : null,
    model: model ? modelView(model) : null,
    cached: call.cache === 'HIT',
    cacheSimilarity: call.similarity ?? null,
    guard: call.guard,
  };
}

/**
 * The call's events: one per piece of text, then the last (empty) with the finish reason and the
 * tokens. An upstream failing midway ends it with ERROR (and no usage: the call did not finish), as
 * the chat proxy's answerStream; the caller leaving (`signal`) ends it with nothing more.
 */
async function* chunksOf(call: ChatCall, model: CatalogModel, signal: AbortSignal) {
  let soFar = '';
  let first: CatalogModel | undefined = model;
  const next = (content: string, end?: Partial<ChatDone>) => {
    soFar += content;
    const chunk = chunkOf(call, content, soFar, first, end);
    first = undefined;
    return chunk;
  };
  let end: Partial<ChatDone>;
  try {
    for await (const piece of call.pieces) if (piece) yield next(piece);
    end = await call.done;
  } catch (err) {
    // The caller left (the model call was aborted for it): nobody reads on, nothing failed.
    if (leftBy(err, signal)) return;
    end = { finishReason: 'error' };
  }
  yield next('', end);
}

export const chatStreamSubscription = (models: ModelsService, callOf: CallOf<KeyCaller>) => ({
  subscribe: async (_: unknown, { input }: { input: ChatInputArgs }, ctx: GraphContext) => {
    const { stop, signal } = subscriberStop(ctx);
    const call = await callOf(ctx, { signal });
    const model = await models.model({ id: input.model }, call);
    const answer = await models.chat({ model, route: 'graphql.chatStream', read: () => chatFields(input, true) }, call);
    return stoppable(chunksOf(answer, model, signal), stop, (chunk) => chunk);
  },
  resolve: (chunk: ChatChunkView) => chunk,
});
