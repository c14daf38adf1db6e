import { randomBytes } from 'node:crypto';
import DataLoader from 'dataloader';
import { DateTimeResolver, SafeIntResolver } from 'graphql-scalars';
import type { CatalogModel } from '../../core/models/catalog';
import type { FinishReason } from '../../core/models/chat';
import type { KeyCaller, ModelsService } from '../../core/models/service';
import { collect, refusing } from '../../rest/models/common';
import { parseArgs } from '../shared/args';
import { callOf, type GraphContext } from '../../edge/graphql/context';
import { ChatArgs, EmbedArgs, modelView, totalsView } from './views';

/**
 * The model gateway's subgraph: the catalog, usage, and provider-neutral chat and embeddings. The
 * caller is the `api-key` header, as on the REST routes (a bearer token is not a model key), so
 * every field, Model references included, is UNAUTHENTICATED without a valid key. The catalog is
 * not secret, but a key sees only the models it may use, on every path: `models`, `model(id)` and
 * the references other subgraphs resolve (null for a model outside the key's list).
 */
type Ctx = GraphContext & { modelsCaller?: KeyCaller; modelRefs?: DataLoader<string, ReturnType<typeof modelView> | null> };

/** The key is checked once per request, however many fields need it. */
const callerOf = (models: ModelsService, ctx: Ctx) => (ctx.modelsCaller ??= models.authenticate(ctx.headers['api-key']));

const visible = async (models: ModelsService, ctx: Ctx): Promise<Map<string, CatalogModel>> => {
  const list = await models.listModels({ caller: callerOf(models, ctx) }, callOf(ctx));
  return new Map(list.map((m) => [m.id, m]));
};

const findModel = async (models: ModelsService, ctx: Ctx, id: string) => {
  const m = (await visible(models, ctx)).get(id);
  return m ? modelView(m) : null;
};

/**
 * One loader per request: every Model reference of one operation (an `_entities` fetch of many
 * answers' models) is resolved from one read of the key's catalog, not one read per reference.
 */
const modelRefs = (models: ModelsService, ctx: Ctx) => (ctx.modelRefs ??= new DataLoader(async (ids: readonly string[]) => {
  const known = await visible(models, ctx);
  return ids.map((id) => {
    const m = known.get(id);
    return m ? modelView(m) : null;
  });
}));

interface ChatInputArgs {
  model: string;
  messages: { role: string; content: string }[];
  maxTokens?: number | null;
  temperature?: number | null;
  topP?: number | null;
  stop?: string[] | null;
}

const FINISH: Record<FinishReason, string> = { stop: 'STOP', length: 'LENGTH', content_filter: 'CONTENT_FILTER', error: 'ERROR' };
const ROLE = { SYSTEM: 'system', USER: 'user', ASSISTANT: 'assistant' } as const;

export const modelsResolvers = (models: ModelsService) => ({
  DateTime: DateTimeResolver,
  SafeInt: SafeIntResolver,
  Query: {
    models: async (_: unknown, _args: unknown, ctx: Ctx) => [...(await visible(models, ctx)).values()].map(modelView),
    model: (_: unknown, args: { id: string }, ctx: Ctx) => findModel(models, ctx, args.id),
    usage: async (_: unknown, args: { from?: Date | null; to?: Date | null }, ctx: Ctx) => {
      const caller = callerOf(models, ctx);
      // As GET /usage: up to now, and the 30 days before `to`.
      const to = args.to ?? new Date(Date.now() + 1);
      const from = args.from ?? new Date(to.getTime() - 30 * 86_400_000);
      const u = await models.usage({ caller, from, to }, callOf(ctx));
      const known = await visible(models, ctx);
      return {
        tenantId: caller.key.tenant, from, to, totals: totalsView(u.totals),
        byModel: u.byModel.map(({ model, ...t }) => {
          const m = known.get(model);
          return { modelId: model, model: m ? modelView(m) : null, totals: totalsView(t) };
        }),
      };
    },
  },
  Mutation: {
    chat: async (_: unknown, { input }: { input: ChatInputArgs }, ctx: Ctx) => {
      const caller = callerOf(models, ctx);
      const model = await models.model({ caller, id: input.model });
      const route = 'graphql.chat';
      const args = await refusing(models, { caller, model, route }, () => parseArgs(ChatArgs, {
        messages: input.messages, maxTokens: input.maxTokens, temperature: input.temperature, topP: input.topP, stop: input.stop,
      }, {}, ['input']));
      const call = await models.chat({
        caller, model, route, messages: args.messages.map((m) => ({ role: ROLE[m.role], text: m.content })),
        maxTokens: args.maxTokens, temperature: args.temperature, topP: args.topP, stop: args.stop, stream: false,
      }, { ...callOf(ctx), signal: ctx.signal }); // a mutation is the caller's alone: leaving stops the model call
      const { text, finishReason, usage } = await collect(call);
      return {
        id: `chat-${randomBytes(12).toString('base64url')}`, model: modelView(model), content: text, finishReason: FINISH[finishReason],
        usage: { ...usage, totalTokens: usage.promptTokens + usage.completionTokens },
        cached: call.cache === 'HIT', guard: call.guard,
      };
    },
    embed: async (_: unknown, input: { model: string; inputs: string[] }, ctx: Ctx) => {
      const caller = callerOf(models, ctx);
      const model = await models.model({ caller, id: input.model });
      const route = 'graphql.embed';
      const { inputs } = await refusing(models, { caller, model, route }, () => parseArgs(EmbedArgs, { inputs: input.inputs }));
      const { vectors, promptTokens } = await models.embed({ caller, model, route, inputs }, { ...callOf(ctx), signal: ctx.signal });
      return { model: modelView(model), vectors: vectors.map((v) => Array.from(v)), dimensions: vectors[0]?.length ?? 0, promptTokens };
    },
  },
  Model: {
    __resolveReference: (ref: { id: string }, ctx: Ctx) => modelRefs(models, ctx).load(ref.id),
  },
});
