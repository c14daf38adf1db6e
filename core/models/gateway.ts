import type { Clock } from '../shared/clock';
import { BadRequest, UpstreamFailed } from '../shared/errors';
import { cacheKey, type ChatCache } from './cache';
import { isActive, type CatalogModel } from './catalog';
import type { ChatMessage, ModelProvider } from './neutral';
import { DeactivatedModel, InvalidKey, MissingKey, ModelNotAllowed, UnknownModel } from './errors';
import { guardOutput, GuardrailViolation } from './guard';
import { parseApiKeyHeader } from './key-options';
import type { ApiKeys } from './keys';
import type { KeyLimits } from './limits';
import type { Meter, MeteredCall } from './metering';
import type { Offload } from './offload';
import { decodedInputs, guardPrompt, inputTokensWithin, promptTokensWithin } from './prompt-checks';
import { promptTexts } from './prompt-texts';
import { chatPromptTokens } from './tokens';
import { tokenIdCounts, tokenIdInputs } from './token-ids';
import type { KeyCaller, ModelsService } from './service';
import type { UsageStore } from './ports';
import { wordCount } from './usage';
import type { CallMeta } from '../shared/context';
import { failed, startSpan, type Trace } from '../shared/telemetry/tracing';
import { nextTurn } from '../shared/turns';

export interface GatewayDeps {
  catalog: readonly CatalogModel[];
  keys: ApiKeys;
  usage: UsageStore;
  cache: ChatCache;
  limits: KeyLimits;
  meter: Meter;
  /** Where token counts and the guard run on long texts (a worker thread). */
  offload: Offload;
  clock: Clock;
  /** The provider that serves a catalog model. */
  providerOf(model: CatalogModel): ModelProvider;
  /** The HTTP status an error stands for (usage records it). */
  statusOf(err: unknown): number;
}

const KIND_NAMES = { chat: 'a chat', embedding: 'an embedding', image: 'an image', transcription: 'a transcription' } as const;

function expectKind(model: CatalogModel, kind: CatalogModel['kind']) {
  if (model.kind !== kind) throw new BadRequest(`The model ${model.id} is not ${KIND_NAMES[kind]} model`, { code: 'unsupported_model' });
}

/** DECISIONS: an image, a document or a video to a model whose catalog entry lacks that input kind is a 400. */
function expectInputKinds(model: CatalogModel, messages: readonly ChatMessage[]) {
  for (const m of messages) {
    for (const a of m.attachments ?? []) {
      if (!model.inputKinds.includes(a.kind)) {
        const what = a.kind === 'Docs' ? 'document' : a.kind.toLowerCase();
        throw new BadRequest(`The model ${model.id} does not accept ${what} input (it takes ${model.inputKinds.join(', ')}).`, { code: 'unsupported_input' });
      }
    }
  }
}

const guardLabel = (redacted: Set<string>) => (redacted.size ? `redacted:${[...redacted].join(',')}` : 'passed');

/** The gateway's calls: keys, limits, checks, guardrails, cache, the provider, and a usage record for each. */
export function gatewayService(d: GatewayDeps): ModelsService {
  const byId = new Map(d.catalog.map((m) => [m.id, m]));
  const allowed = (k: { models: string[] | null }, id: string) => !k.models || k.models.includes(id);
  const provider = <K extends keyof ModelProvider>(model: CatalogModel, method: K): NonNullable<ModelProvider[K]> => {
    const p = d.providerOf(model)[method];
    if (!p) throw new UpstreamFailed(`The ${model.upstream.provider} provider cannot serve ${model.id} here`, { code: 'provider_unavailable' });
    return p as NonNullable<ModelProvider[K]>;
  };
  /**
   * Runs a call, recording it as refused (with its status; 499 when its caller left) when it throws.
   * Its span (`model <route> <model id>`), under the call's trace, is the trace `run` gives the
   * upstream (its client span is the span's child), and is ended by the call's usage record
   * (metering.ts): a stream's when it ends.
   */
  async function metered<T>(m: MeteredCall, startedAt: number, call: CallMeta, run: (trace: Trace) => Promise<T>, wordsSent?: number): Promise<T> {
    const { span, trace } = startSpan(call.trace, `model ${m.route} ${m.model.id}`, { 'gen_ai.request.model': m.model.id, 'gen_ai.system': m.model.upstream.provider, 'model.route': m.route });
    m.span = span;
    try {
      return await run(trace);
    } catch (err) {
      failed(span, err);
      const guard = err instanceof GuardrailViolation ? `blocked:${err.detectors.join(',')}` : 'n/a';
      d.meter.record(m, { status: call.signal?.aborted ? 499 : d.statusOf(err), startedAt, wordsSent, guard });
      throw err;
    }
  }

  return {
    listModels: async (_input, { caller }) => d.catalog.filter((m) => allowed(caller.key, m.id)),
    async model({ id }, { caller }) {
      const m = byId.get(id);
      if (!m) throw new UnknownModel(id);
      if (!isActive(m)) throw new DeactivatedModel(id, m.status);
      if (!allowed(caller.key, id)) throw new ModelNotAllowed(id);
      return m;
    },
    chat(input, call) {
      const { caller } = call;
      const { model, messages } = input;
      const m: MeteredCall = { caller, model, route: input.route };
      const startedAt = d.clock.now();
      const wordsSent = messages.reduce((n, x) => n + wordCount(x.text), 0);
      return metered(m, startedAt, call, async (trace) => {
        await d.limits.admit(caller.key);
        expectKind(model, 'chat');
        expectInputKinds(model, messages);
        const chat = provider(model, 'chat');
        // Tool definitions and a response schema are prompt too: counted against the context and in usage.
        // Written out as JSON in a turn of the event loop of their own: a megabyte of them takes some 6 ms.
        if (input.tools?.length || input.responseFormat?.type === 'json_schema') await nextTurn();
        const texts = promptTexts(messages, input.tools, input.responseFormat);
        const within = await promptTokensWithin(d.offload, model, texts, call.signal);
        // A short prompt is counted later, if at all (its upstream may count it), unless a count of its
        // messages alone would differ from what a provider estimates from them.
        const promptTokens = typeof within === 'function' && texts.length > messages.length ? within() : within;
        const level = caller.options.use_guard;
        const guarded = level === 0 ? undefined : await guardPrompt(d.offload, messages, call.signal);
        const guard = guarded ? guardLabel(new Set(guarded.redacted)) : 'off';
        const { model: _m, route: _r, ...asked } = input;
        const request = {
          ...asked, model: model.upstream.model ?? model.id, messages: guarded?.messages ?? messages, maxTokens: input.maxTokens ?? model.maxOutputTokens,
          ...(typeof promptTokens === 'number' ? { promptTokens } : {}),
        };
        const calledAt = d.clock.now();
        const upstream = () => chat(request, call.signal, trace);
        const { stream, outcome } = caller.options.is_cache === 0
          ? { stream: await upstream(), outcome: 'BYPASS' as const }
          : await d.cache.through(cacheKey(caller.key.tenant, model.id, request), upstream);
        let answer = stream;
        if (level === 2) {
          let blocked = false;
          const pieces = guardOutput(stream.pieces, () => (blocked = true));
          answer = { pieces, done: stream.done.then((r) => (blocked ? { ...r, finishReason: 'content_filter' as const } : r)) };
        }
        const out = d.meter.stream(m, answer, { status: 200, startedAt, calledAt, tokensIn: promptTokens, wordsSent, cache: outcome, guard, signal: call.signal });
        return { ...out, cache: outcome, guard };
      });
    },
    embed(input, call) {
      const { model } = input;
      const m: MeteredCall = { caller: call.caller, model, route: input.route };
      const startedAt = d.clock.now();
      const ids = tokenIdInputs(input.inputs);
      const given = ids ? undefined : input.inputs as string[];
      let wordsSent = given?.reduce((n, t) => n + wordCount(t), 0);
      return metered(m, startedAt, call, async (trace) => {
        await d.limits.admit(call.caller.key);
        expectKind(model, 'embedding');
        const embed = provider(model, 'embed');
        // Token ids are their own count; they go on as they came to an upstream that takes them.
        const counts = ids ? tokenIdCounts(model, ids) : await inputTokensWithin(d.offload, model, given!, call.signal);
        const passed = ids && d.providerOf(model).takesTokenIds ? ids : undefined;
        const texts = given ?? (passed ? [] : await decodedInputs(d.offload, ids!, call.signal));
        if (ids && !passed) wordsSent = texts.reduce((n, t) => n + wordCount(t), 0);
        const calledAt = d.clock.now();
        const r = await embed({ model: model.upstream.model ?? model.id, inputs: texts, ...(passed && { tokenIds: passed }), dimensions: input.dimensions }, call.signal, trace);
        const promptTokens = r.promptTokens ?? counts.reduce((a, b) => a + b, 0);
        d.meter.record(m, { status: 200, startedAt, upstreamMs: d.clock.now() - calledAt, tokensIn: promptTokens, wordsSent, guard: 'off' });
        return { vectors: r.vectors, promptTokens };
      });
    },
    generateImage(input, call) {
      const { caller } = call;
      const { model } = input;
      const m: MeteredCall = { caller, model, route: input.route };
      const startedAt = d.clock.now();
      const wordsSent = wordCount(input.prompt);
      return metered(m, startedAt, call, async (trace) => {
        await d.limits.admit(caller.key);
        expectKind(model, 'image');
        const generate = provider(model, 'generateImage');
        const tokensIn = await promptTokensWithin(d.offload, model, [input.prompt], call.signal);
        const g = caller.options.use_guard === 0 ? undefined : await guardPrompt(d.offload, [{ role: 'user', text: input.prompt }], call.signal);
        const calledAt = d.clock.now();
        const r = await generate({ model: model.upstream.model ?? model.id, prompt: g?.messages[0]!.text ?? input.prompt, size: input.size, quality: input.quality, style: input.style }, call.signal, trace);
        d.meter.record(m, { status: 200, startedAt, upstreamMs: d.clock.now() - calledAt, tokensIn, wordsSent,
          guard: g ? guardLabel(new Set(g.redacted)) : 'off' });
        return r;
      });
    },
    transcribe(input, call) {
      const { caller } = call;
      const { model } = input;
      const m: MeteredCall = { caller, model, route: input.route };
      const startedAt = d.clock.now();
      return metered(m, startedAt, call, async (trace) => {
        await d.limits.admit(caller.key);
        expectKind(model, 'transcription');
        const transcribe = provider(model, 'transcribe');
        const calledAt = d.clock.now();
        const { model: _m, route: _r, ...audio } = input;
        let t = await transcribe({ ...audio, model: model.upstream.model ?? model.id }, call.signal, trace);
        const upstreamMs = d.clock.now() - calledAt;
        let guard = 'off';
        if (caller.options.use_guard === 2) {
          // The transcript is the upstream's answer: redacted, never blocked.
          const texts = [t.text, ...(t.segments ?? []).map((s) => s.text)].map((text) => ({ role: 'assistant' as const, text }));
          const g = await guardPrompt(d.offload, texts, call.signal);
          t = { ...t, text: g.messages[0]!.text, segments: t.segments?.map((s, i) => ({ ...s, text: g.messages[i + 1]!.text })) };
          guard = guardLabel(new Set(g.redacted));
        }
        const tokensOut = await d.offload.run('count', [[t.text], Infinity], t.text.length, call.signal);
        d.meter.record(m, { status: 200, startedAt, upstreamMs, tokensOut, wordsReceived: wordCount(t.text), guard });
        return t;
      });
    },
    countTokens(input, call) {
      const m: MeteredCall = { caller: call.caller, model: input.model, route: input.route };
      const startedAt = d.clock.now();
      return metered(m, startedAt, call, async () => {
        await d.limits.admit(call.caller.key);
        const texts = promptTexts(input.messages, input.tools);
        const counted = await d.offload.run('count', [texts, Infinity], texts.reduce((n, t) => n + t.length, 0), call.signal);
        // No model was called: a usage row with no tokens (and no cost), so the calls still show.
        d.meter.record(m, { status: 200, startedAt, guard: 'off' });
        return { tokens: chatPromptTokens(input.messages, counted) };
      });
    },
    refused({ error, startedAt, model, route }, { caller }) {
      d.meter.record({ caller, model, route }, { status: d.statusOf(error), startedAt, guard: 'n/a' });
    },
    usage: async ({ from, to }, { caller }) => d.usage.totals(caller.key.tenant, from.getTime(), to.getTime()),
  };
}

/**
 * The caller an LM key establishes (the module's declared credential: `api-key: <key>[/<options>]`):
 * 401 when missing, unknown or revoked; 400 for a bad option. The key is looked up first, so a
 * stranger learns nothing about options from a 400.
 */
export const keyCallerOf = (keys: Pick<ApiKeys, 'verify'>) => async (header: string | undefined): Promise<KeyCaller> => {
  if (!header?.trim()) throw new MissingKey();
  const found = await keys.verify(header.split('/', 1)[0]!.trim());
  if (!found) throw new InvalidKey();
  return { key: found, options: parseApiKeyHeader(header).options };
};
