import type { Clock } from '../shared/clock';
import type { Ctx } from '../shared/context';
import { BadRequest, UpstreamFailed } from '../shared/errors';
import { failed, startSpan, type Trace } from '../shared/telemetry/tracing';
import type { CatalogModel } from './catalog/catalog';
import type { ChatMessage, ChatStream, ModelProvider } from './neutral';
import { GuardrailViolation } from './prompt/guard';
import type { KeyLimits } from './keys/limits';
import type { CallOutcome, Meter, MeteredCall } from './usage/metering';
import { fieldsOf } from './given';
import type { Given, KeyCaller, Metered } from './service';
import { createRouter, type Router, type Served } from './routing/router';

/**
 * The one metered pipeline every method of the models service runs (models-service.ts), in order:
 *
 * 1. the input read (`Given`: a wire body or GraphQL arguments), a refusal recorded in usage;
 * 2. the call's span (`model <route> <model id>`), ended by its usage record;
 * 3. admission under the key's limits (429);
 * 4. the model's kind and what else the method checks of it (input kinds): 400;
 * 5. the provider's method the call needs (502 `provider_unavailable` when it has none);
 * 6. the method's own step: counting, guarding, calling the upstream;
 * 7. the usage record: ok with the step's figures (a stream's when it ends), or how it failed
 *    (`left` when the caller went away), with the guard's block when it blocked.
 *
 * A method declares only its differences (`Method`); nothing here names a status (core/shared/call-end.ts).
 */
export interface Method<F, R, K extends keyof ModelProvider = never> {
  /** The kind of catalog model it calls; none when no model is called (counting tokens). */
  kind?: CatalogModel['kind'];
  /** What it checks of its fields against the model beyond its kind (400). */
  check?(model: CatalogModel, fields: F): void;
  /** The provider's method it calls. */
  provider?: K;
  /** Its own step: what it counts, guards and calls, and what usage records of it. */
  run(fields: F, step: Step<K>): Promise<Answer<R>>;
}

/** What the pipeline hands a method's step. */
export interface Step<K extends keyof ModelProvider> {
  model: CatalogModel;
  caller: KeyCaller;
  signal?: AbortSignal;
  /** The call's span's trace: the upstream's client span is its child. */
  trace: Trace;
  /** The provider's method (`Method.provider`): the router's (routing/router.ts), over the model's deployments and fallbacks. */
  upstream: NonNullable<ModelProvider[K]>;
  /**
   * The model's context fallback (`routing.contextFallback`) as the call's model and upstream from
   * now on (what it served is then the call's `served`); undefined when it has none the key may use.
   */
  reroute(target: string): { model: CatalogModel; upstream: NonNullable<ModelProvider[K]> } | undefined;
  /** Which deployment answered, once one did (routing/router.ts). */
  served(): Served | undefined;
}

/** The figures of an answered call (its end and start are the pipeline's). */
export type Figures = Omit<CallOutcome, 'end' | 'startedAt'>;

/** A step's answer: a value recorded now, or a stream recorded when it ends (`value` gets it metered). */
export type Answer<R> =
  { value: R; usage: Figures } | { stream: ChatStream; usage: Figures & { calledAt: number }; value: (metered: ChatStream) => R };

export interface PipelineDeps {
  limits: KeyLimits;
  meter: Meter;
  clock: Clock;
  /** The provider that serves a catalog model. */
  providerOf(model: CatalogModel): ModelProvider;
  /** The router over each model's deployments (routing/router.ts); one over `providerOf` with no health tracked when absent. */
  router?: Router;
}

const KIND_NAMES = { chat: 'a chat', embedding: 'an embedding', image: 'an image', transcription: 'a transcription' } as const;

function expectKind(model: CatalogModel, kind: CatalogModel['kind']) {
  if (model.kind !== kind) throw new BadRequest(`The model ${model.id} is not ${KIND_NAMES[kind]} model`, { code: 'unsupported_model' });
}

/** DECISIONS: an image, a document or a video to a model whose catalog entry lacks that input kind is a 400. */
export function expectInputKinds(model: CatalogModel, messages: readonly ChatMessage[]) {
  for (const m of messages) {
    for (const a of m.attachments ?? []) {
      if (!model.inputKinds.includes(a.kind)) {
        const what = a.kind === 'Docs' ? 'document' : a.kind.toLowerCase();
        throw new BadRequest(`The model ${model.id} does not accept ${what} input (it takes ${model.inputKinds.join(', ')}).`, {
          code: 'unsupported_input',
        });
      }
    }
  }
}

export function meteredPipeline(d: PipelineDeps) {
  const router = d.router ?? createRouter({ providerOf: (model) => d.providerOf(model), lookup: () => undefined, clock: d.clock });
  const provider = <K extends keyof ModelProvider>(model: CatalogModel, method: K, caller: KeyCaller) => {
    if (method === 'takesTokenIds' || !router.serves(model, method))
      throw new UpstreamFailed(`The ${model.upstream.provider} provider cannot serve ${model.id} here`, { code: 'provider_unavailable' });
    let routed = router.open(model, method, caller);
    const reroute = (target: string) => {
      const to = router.target(target, method, model.kind, caller);
      if (!to) return undefined;
      routed = to;
      return { model: to.model, upstream: to.upstream as unknown as NonNullable<ModelProvider[K]> };
    };
    return { upstream: routed.upstream as unknown as NonNullable<ModelProvider[K]>, reroute, served: () => routed.served() };
  };

  /** Reads the input's fields; a reading that fails is a refused call, recorded (before any span or admission). */
  async function read<F>(m: MeteredCall, input: Given<F>): Promise<F> {
    const startedAt = d.clock.now();
    try {
      return await fieldsOf(input);
    } catch (err) {
      d.meter.record(m, { end: { failed: err }, startedAt, guard: 'n/a' });
      throw err;
    }
  }

  return async function run<F, R, K extends keyof ModelProvider = never>(
    method: Method<F, R, K>,
    input: Metered & Given<F>,
    call: Ctx<KeyCaller>,
  ): Promise<R> {
    const { caller, signal } = call;
    const { model, route } = input;
    const m: MeteredCall = { caller, model, route };
    const fields = await read(m, input);
    const startedAt = d.clock.now();
    const { span, trace } = startSpan(call.trace, `model ${route} ${model.id}`, {
      'gen_ai.request.model': model.id,
      'gen_ai.system': model.upstream.provider,
      'model.route': route,
    });
    m.span = span;
    try {
      await d.limits.admit(caller.key);
      if (method.kind) expectKind(model, method.kind);
      method.check?.(model, fields);
      const p = method.provider ? provider(model, method.provider, caller) : undefined;
      const upstream = p?.upstream as NonNullable<ModelProvider[K]>;
      const reroute = p?.reroute ?? (() => undefined);
      const servedNow = () => p?.served();
      const a = await method.run(fields, { model, caller, signal, trace, upstream, reroute, served: servedNow });
      const served = p?.served();
      if ('stream' in a) return a.value(d.meter.stream(m, a.stream, { ...a.usage, startedAt, signal, ...(served && { served }) }));
      d.meter.record(m, { ...a.usage, end: 'ok', startedAt, ...(served && { served }) });
      return a.value;
    } catch (err) {
      failed(span, err);
      const guard = err instanceof GuardrailViolation ? `blocked:${err.detectors.join(',')}` : 'n/a';
      d.meter.record(m, { end: signal?.aborted ? 'left' : { failed: err }, startedAt, guard });
      throw err;
    }
  };
}

export type MeteredPipeline = ReturnType<typeof meteredPipeline>;
