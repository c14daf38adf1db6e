import { cacheKey, type CacheOutcome, type ChatCache } from './answers/cache';
import type { SemanticCache, SemanticOutcome } from './answers/semantic-cache';
import type { SemanticEmbed } from './answers/semantic-embed';
import type { CatalogModel } from './catalog/catalog';
import type { LiveCatalog } from './catalog/live-catalog';
import { DeactivatedModel, ModelNotAllowed, UnknownModel } from './errors';
import { isActive } from './catalog/catalog';
import { guardOutput } from './prompt/guard';
import type { Offload } from './offload/offload';
import { expectInputKinds, type MeteredPipeline } from './pipeline';
import { decodedInputs, guardPrompt, inputTokensWithin, promptTokensWithin } from './prompt/prompt-checks';
import { promptTexts } from './prompt/prompt-texts';
import { chatPromptTokens } from './prompt/tokens';
import { tokenIdCounts, tokenIdInputs } from './prompt/token-ids';
import type { ChatCall, ChatFields, CountFields, EmbedFields, ImageFields, ModelsService, TranscribeFields } from './service';
import type { UsageStore } from './ports';
import type { ChatStream, ModelProvider, Transcript } from './neutral';
import { wordCount } from './usage/usage';
import { nextTurn } from '../shared/turns';
import { BadRequest } from '../shared/errors';
import { audioSecondsBound, chatBound, outputBound, promptBound } from './spend/bounds';

export interface ModelsServiceDeps {
  /** The effective catalog, read at each call (an admin's change applies to the next one). */
  catalog: Pick<LiveCatalog, 'current' | 'ready'>;
  usage: UsageStore;
  cache: ChatCache;
  /** Where token counts and the guard run on long texts (a worker thread). */
  offload: Offload;
  clock: { now(): number };
  /** The provider that serves a catalog model (whether its embed takes token ids). */
  providerOf(model: CatalogModel): ModelProvider;
  /** The metered pipeline every call runs (pipeline.ts). */
  metered: MeteredPipeline;
  /** The semantic cache, for keys whose `semantic_cache` option sets a threshold; exact only when absent. */
  semantic?: { cache: SemanticCache; embed: SemanticEmbed };
}

const overContext = (err: unknown) => err instanceof BadRequest && err.code === 'context_length_exceeded';

const guardLabel = (redacted: Set<string>) => (redacted.size ? `redacted:${[...redacted].join(',')}` : 'passed');

/**
 * The models service: the catalog, usage, and its calls, each the metered pipeline (pipeline.ts)
 * given what the call differs in: the model kind, the provider's method, what it counts and guards,
 * how it calls the upstream and what usage records of it.
 */
export function createModelsService(d: ModelsServiceDeps): ModelsService {
  // Until the store was first read (a call at the first moment of a start), the calls wait for it.
  let ready = false;
  void d.catalog.ready.then(() => (ready = true));
  const catalog = async () => {
    if (!ready) await d.catalog.ready;
    return d.catalog.current();
  };
  const allowed = (k: { models: string[] | null }, id: string) => !k.models || k.models.includes(id);
  const { metered, offload } = d;

  return {
    listModels: async (_input, { caller }) => (await catalog()).models.filter((m) => allowed(caller.key, m.id)),
    async model({ id }, { caller }) {
      const m = (await catalog()).byId.get(id)?.model;
      if (!m) throw new UnknownModel(id);
      if (!isActive(m)) throw new DeactivatedModel(id, m.status);
      if (!allowed(caller.key, id)) throw new ModelNotAllowed(id);
      return m;
    },
    chat: (input, call) =>
      metered<ChatFields, ChatCall, 'chat'>(
        {
          kind: 'chat',
          provider: 'chat',
          check: (model, f) => expectInputKinds(model, f.messages),
          bound: chatBound,
          async run(f, step) {
            const { caller, signal, trace } = step;
            let { model, upstream: chat } = step;
            const { messages } = f;
            const wordsSent = messages.reduce((n, x) => n + wordCount(x.text), 0);
            // Tool definitions and a response schema are prompt too: counted against the context and in usage.
            // Written out as JSON in a turn of the event loop of their own: a megabyte of them takes some 6 ms.
            if (f.tools?.length || f.responseFormat?.type === 'json_schema') await nextTurn();
            const texts = promptTexts(messages, f.tools, f.responseFormat);
            let within: Awaited<ReturnType<typeof promptTokensWithin>>;
            try {
              within = await promptTokensWithin(offload, model, texts, signal);
            } catch (err) {
              // Over the context: the model's context fallback takes it when it has one the key may use (its own context checked).
              const to = overContext(err) && model.routing?.contextFallback ? step.reroute(model.routing.contextFallback) : undefined;
              if (!to) throw err;
              ({ model, upstream: chat } = to);
              within = await promptTokensWithin(offload, model, texts, signal);
            }
            // A short prompt is counted later, if at all (its upstream may count it), unless a count of its
            // messages alone would differ from what a provider estimates from them.
            const promptTokens = typeof within === 'function' && texts.length > messages.length ? within() : within;
            const level = caller.options.use_guard;
            const guarded = level === 0 ? undefined : await guardPrompt(offload, messages, signal);
            const guard = guarded ? guardLabel(new Set(guarded.redacted)) : 'off';
            const { model: _m, route: _r, ...asked } = f as typeof f & { model?: unknown; route?: unknown };
            const request = {
              ...asked,
              model: model.upstream.model ?? model.id,
              messages: guarded?.messages ?? messages,
              maxTokens: f.maxTokens ?? model.maxOutputTokens,
              ...(typeof promptTokens === 'number' ? { promptTokens } : {}),
            };
            // When the upstream was called: after the caches' lookups (and the semantic cache's embedding).
            let calledAt = d.clock.now();
            const upstream = () => {
              calledAt = d.clock.now();
              return chat(request, signal, trace);
            };
            const threshold = caller.options.semantic_cache;
            const { stream, outcome, similarity }: { stream: ChatStream; outcome: CacheOutcome | SemanticOutcome; similarity?: number } =
              caller.options.is_cache === 0
                ? { stream: await upstream(), outcome: 'BYPASS' }
                : threshold !== undefined && d.semantic
                  ? await d.semantic.cache.through(
                      {
                        tenant: caller.key.tenant,
                        catalog: model.id,
                        request,
                        threshold,
                        embed: (t) => d.semantic!.embed(caller, t, signal, trace),
                      },
                      upstream,
                    )
                  : await d.cache.through(cacheKey(caller.key.tenant, model.id, request), upstream);
            let answer = stream;
            if (level === 2) {
              let blocked = false;
              const pieces = guardOutput(stream.pieces, () => (blocked = true));
              answer = { pieces, done: stream.done.then((r) => (blocked ? { ...r, finishReason: 'content_filter' as const } : r)) };
            }
            return {
              stream: answer,
              usage: { calledAt, tokensIn: promptTokens, wordsSent, cache: outcome, guard },
              // A semantic hit is a HIT on the wire (x-cache), and SEMANTIC_HIT in usage and metrics.
              value: (out) => {
                const served = outcome === 'HIT' || outcome === 'SEMANTIC_HIT' ? undefined : step.served();
                return {
                  ...out,
                  cache: outcome === 'SEMANTIC_HIT' ? 'HIT' : outcome,
                  guard,
                  ...(similarity !== undefined && { similarity }),
                  ...(served && { deployment: `${served.model.id}@${served.deployment}` }),
                };
              },
            };
          },
        },
        input,
        call,
      ),
    embed: (input, call) =>
      metered<EmbedFields, { vectors: Float32Array[]; promptTokens: number }, 'embed'>(
        {
          kind: 'embedding',
          provider: 'embed',
          bound: (model, f) => ({
            tokensIn: f.inputs.reduce(
              (n: number, x: string | readonly number[]) => n + (typeof x === 'string' ? promptBound(model, [x]) : x.length),
              0,
            ),
            tokensOut: 0,
          }),
          async run(f, { model, signal, trace, upstream: embed }) {
            const ids = tokenIdInputs(f.inputs);
            const given = ids ? undefined : (f.inputs as string[]);
            let wordsSent = given?.reduce((n, t) => n + wordCount(t), 0);
            // Token ids are their own count; they go on as they came to an upstream that takes them.
            const counts = ids ? tokenIdCounts(model, ids) : await inputTokensWithin(offload, model, given!, signal);
            const passed = ids && d.providerOf(model).takesTokenIds ? ids : undefined;
            const texts = given ?? (passed ? [] : await decodedInputs(offload, ids!, signal));
            if (ids && !passed) wordsSent = texts.reduce((n, t) => n + wordCount(t), 0);
            const calledAt = d.clock.now();
            const r = await embed(
              { model: model.upstream.model ?? model.id, inputs: texts, ...(passed && { tokenIds: passed }), dimensions: f.dimensions },
              signal,
              trace,
            );
            const promptTokens = r.promptTokens ?? counts.reduce((a, b) => a + b, 0);
            return {
              value: { vectors: r.vectors, promptTokens },
              usage: { upstreamMs: d.clock.now() - calledAt, tokensIn: promptTokens, wordsSent, guard: 'off' },
            };
          },
        },
        input,
        call,
      ),
    generateImage: (input, call) =>
      metered<ImageFields, { b64: string; mimeType: string; revisedPrompt?: string }, 'generateImage'>(
        {
          kind: 'image',
          provider: 'generateImage',
          bound: (model, f) => ({ tokensIn: promptBound(model, [f.prompt]), tokensOut: 0, images: 1 }),
          async run(f, { model, caller, signal, trace, upstream: generate }) {
            const tokensIn = await promptTokensWithin(offload, model, [f.prompt], signal);
            const g = caller.options.use_guard === 0 ? undefined : await guardPrompt(offload, [{ role: 'user', text: f.prompt }], signal);
            const calledAt = d.clock.now();
            const r = await generate(
              {
                model: model.upstream.model ?? model.id,
                prompt: g?.messages[0]!.text ?? f.prompt,
                size: f.size,
                quality: f.quality,
                style: f.style,
              },
              signal,
              trace,
            );
            return {
              value: r,
              usage: {
                upstreamMs: d.clock.now() - calledAt,
                tokensIn,
                images: 1,
                wordsSent: wordCount(f.prompt),
                guard: g ? guardLabel(new Set(g.redacted)) : 'off',
              },
            };
          },
        },
        input,
        call,
      ),
    transcribe: (input, call) =>
      metered<TranscribeFields, Transcript, 'transcribe'>(
        {
          kind: 'transcription',
          provider: 'transcribe',
          bound: (model, f) => ({ tokensIn: 0, tokensOut: outputBound(model), audioSeconds: audioSecondsBound(f.audio.length) }),
          async run(f, { model, caller, signal, trace, upstream: transcribe }) {
            const calledAt = d.clock.now();
            const { model: _m, route: _r, ...audio } = f as typeof f & { model?: unknown; route?: unknown };
            let t = await transcribe({ ...audio, model: model.upstream.model ?? model.id }, signal, trace);
            const upstreamMs = d.clock.now() - calledAt;
            let guard = 'off';
            if (caller.options.use_guard === 2) {
              // The transcript is the upstream's answer: redacted, never blocked.
              const texts = [t.text, ...(t.segments ?? []).map((s) => s.text)].map((text) => ({ role: 'assistant' as const, text }));
              const g = await guardPrompt(offload, texts, signal);
              t = { ...t, text: g.messages[0].text, segments: t.segments?.map((s, i) => ({ ...s, text: g.messages[i + 1].text })) };
              guard = guardLabel(new Set(g.redacted));
            }
            const tokensOut = await offload.run('count', [[t.text], Infinity], t.text.length, signal);
            return { value: t, usage: { upstreamMs, tokensOut, wordsReceived: wordCount(t.text), guard, audioSeconds: t.duration ?? 0 } };
          },
        },
        input,
        call,
      ),
    // No model is called: a usage row with no tokens (and no cost), so the calls still show.
    countTokens: (input, call) =>
      metered<CountFields, { tokens: number }>(
        {
          async run(f, { signal }) {
            const texts = promptTexts(f.messages, f.tools);
            const counted = await offload.run(
              'count',
              [texts, Infinity],
              texts.reduce((n, t) => n + t.length, 0),
              signal,
            );
            return { value: { tokens: chatPromptTokens(f.messages, counted) }, usage: { guard: 'off' } };
          },
        },
        input,
        call,
      ),
    usage: async ({ from, to }, { caller }) => d.usage.totals(caller.key.tenant, from.getTime(), to.getTime()),
  };
}
