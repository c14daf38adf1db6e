import { randomBytes } from 'node:crypto';
import DataLoader from 'dataloader';
import { DateTimeResolver, SafeIntResolver } from 'graphql-scalars';
import type { CatalogModel } from '../../core/models/catalog/catalog';
import type { KeyCaller, ModelsService } from '../../core/models/service';
import { collect } from '../../core/models/collect';
import type { CallOf } from '../../edge/graphql/calls';
import { parseArgs } from '../shared/args';
import type { GraphContext } from '../../edge/graphql/context';
import { FINISH } from '../shared/finish';
import { chatStreamSubscription } from './chat-stream';
import { chatFields, EmbedArgs, modelView, totalsView, usageView, type ChatInputArgs } from './views';

/**
 * The model gateway's subgraph: the catalog, usage, provider-neutral chat (whole, or streamed:
 * chat-stream.ts) and embeddings. The
 * caller is the `api-key` header, as on the REST routes (a bearer token is not a model key), so
 * every field, Model references included, is UNAUTHENTICATED without a valid key. The catalog is
 * not secret, but a key sees only the models it may use, on every path: `models`, `model(id)` and
 * the references other subgraphs resolve (null for a model outside the key's list).
 */
type Ctx = GraphContext & { modelRefs?: DataLoader<string, ReturnType<typeof modelView> | null> };

export const modelsResolvers = (models: ModelsService, callOf: CallOf<KeyCaller>) => {
  const visible = async (ctx: Ctx): Promise<Map<string, CatalogModel>> =>
    new Map((await models.listModels({}, await callOf(ctx))).map((m) => [m.id, m]));

  /**
   * One loader per request: every Model reference of one operation (an `_entities` fetch of many
   * answers' models) is resolved from one read of the key's catalog, not one read per reference.
   */
  const modelRefs = (ctx: Ctx) =>
    (ctx.modelRefs ??= new DataLoader(async (ids: readonly string[]) => {
      const known = await visible(ctx);
      return ids.map((id) => {
        const m = known.get(id);
        return m ? modelView(m) : null;
      });
    }));

  return {
    DateTime: DateTimeResolver,
    SafeInt: SafeIntResolver,
    Query: {
      models: async (_: unknown, _args: unknown, ctx: Ctx) => [...(await visible(ctx)).values()].map(modelView),
      model: (_: unknown, args: { id: string }, ctx: Ctx) => modelRefs(ctx).load(args.id),
      usage: async (_: unknown, args: { from?: Date | null; to?: Date | null }, ctx: Ctx) => {
        const call = await callOf(ctx);
        // As GET /usage: up to now, and the 30 days before `to`.
        const to = args.to ?? new Date(Date.now() + 1);
        const from = args.from ?? new Date(to.getTime() - 30 * 86_400_000);
        const u = await models.usage({ from, to }, call);
        const known = await visible(ctx);
        return {
          tenantId: call.caller.key.tenant,
          from,
          to,
          totals: totalsView(u.totals),
          byModel: u.byModel.map(({ model, ...t }) => {
            const m = known.get(model);
            return { modelId: model, model: m ? modelView(m) : null, totals: totalsView(t) };
          }),
        };
      },
    },
    Mutation: {
      chat: async (_: unknown, { input }: { input: ChatInputArgs }, ctx: Ctx) => {
        // A mutation is the caller's alone: the HTTP client leaving stops the model call.
        const call = await callOf(ctx, { signal: ctx.signal });
        const model = await models.model({ id: input.model }, call);
        const answer = await models.chat({ model, route: 'graphql.chat', read: () => chatFields(input, false) }, call);
        const { text, finishReason, usage } = await collect(answer);
        return {
          id: `chat-${randomBytes(12).toString('base64url')}`,
          model: modelView(model),
          content: text,
          finishReason: FINISH[finishReason],
          usage: usageView(usage),
          cached: answer.cache === 'HIT',
          cacheSimilarity: answer.similarity ?? null,
          guard: answer.guard,
        };
      },
      embed: async (_: unknown, input: { model: string; inputs?: string[] | null; tokenIds?: number[][] | null }, ctx: Ctx) => {
        const call = await callOf(ctx, { signal: ctx.signal });
        const model = await models.model({ id: input.model }, call);
        const route = 'graphql.embed';
        const { vectors, promptTokens } = await models.embed(
          {
            model,
            route,
            read: () => {
              const args = parseArgs(EmbedArgs, { inputs: input.inputs, tokenIds: input.tokenIds });
              return { inputs: args.inputs ?? args.tokenIds! };
            },
          },
          call,
        );
        return { model: modelView(model), vectors: vectors.map((v) => Array.from(v)), dimensions: vectors[0]?.length ?? 0, promptTokens };
      },
    },
    Subscription: {
      chatStream: chatStreamSubscription(models, callOf),
    },
    Model: {
      __resolveReference: (ref: { id: string }, ctx: Ctx) => modelRefs(ctx).load(ref.id),
    },
  };
};
