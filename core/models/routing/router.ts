import type { Clock } from '../../shared/clock';
import { PlatformError, Unavailable, UpstreamTimeout } from '../../shared/errors';
import { pause } from '../../shared/http/retry';
import { noMetrics, type Metrics } from '../../shared/telemetry/metrics';
import { failed as spanFailed, startSpan, type Trace } from '../../shared/telemetry/tracing';
import type { CatalogModel, Deployment } from '../catalog/catalog';
import type { ChatStream, ModelProvider } from '../neutral';
import type { LimitCounters } from '../ports';
import type { KeyCaller } from '../service';
import { judge, retryWait } from './attempts';
import { firstPiece, wholeAnswer } from './first-piece';
import type { DeploymentHealth, DeploymentRef } from './health';
import { planOf, targetGroup, type Group, type Plan } from './plan';
import { routerMetrics } from './router-metrics';
import { orderDeployments } from './strategies';

/**
 * The router (issue 35): a catalog model's deployments (and its fallback models') as one provider
 * method the pipeline calls (pipeline.ts step 5). Per call it tries the deployments in the order of
 * the strategy, skipping those cooling down or at their `rpm`; retries one on `retry.on`, a failed
 * connection or a timeout (backoff with jitter, or the vendor's `Retry-After` up to
 * `maxRetryAfterMs`; a longer one cools it down and the next is tried); fails over on a vendor's
 * 401/403/404 or when the retries are spent; and hands a caller's mistake (400/413/422) back at
 * once. At most (deployments + fallback deployments) × (1 + `retry.attempts`) attempts, within
 * `timeout.totalMs`; an attempt gets `timeout.attemptMs` to its first byte. A chat attempt lasts
 * until the stream's first piece (or its end): a stream that breaks before it is failed over, one
 * that breaks after it ends with the vendor's error event as before. When every deployment was
 * cooling down before any attempt: 503 `no_healthy_deployment` with the earliest end as Retry-After.
 */
export type RoutedMethod = 'chat' | 'embed' | 'generateImage' | 'transcribe';
type Fn<K extends RoutedMethod> = NonNullable<ModelProvider[K]>;

/** Which deployment answered a call: the spend lane prices `model` (a fallback's when one answered). */
export interface Served {
  model: CatalogModel;
  deployment: string;
  attempts: number;
}

export interface RouterDeps {
  /** The provider of one deployment (the registry's, keyed by model and deployment); `routed`: without transport retries. */
  providerOf(model: CatalogModel, deployment: Deployment, routed: boolean): ModelProvider;
  /** The deployments' health (cooldowns, in flight, latency); absent: each is always healthy and nothing is tracked (unit tests of the pipeline). */
  health?: DeploymentHealth;
  /** Where a deployment's `rpm` is counted (as a key's requests, under `deployment:<model>@<id>`). */
  counters?: Pick<LimitCounters, 'takeRequest'>;
  /** The effective catalog's model by id (fallbacks are looked up at each call). */
  lookup(id: string): CatalogModel | undefined;
  clock: Clock;
  metrics?: Metrics;
  random?: () => number;
}

/** One call's routing: the provider method to call, and which deployment served it once it did. */
export interface Routed<K extends RoutedMethod> {
  upstream: Fn<K>;
  served(): Served | undefined;
  /** Every model the call may reach (the named one, its fallbacks, its content and context fallbacks): the money budgets reserve at the priciest. */
  models: readonly CatalogModel[];
}

export interface Router {
  /** The routed method for `model` under `caller` (its header override checked now: 400/403/404). */
  open<K extends RoutedMethod>(model: CatalogModel, method: K, caller: KeyCaller): Routed<K>;
  /** A `model` or `model@deployment` another model falls back to (context fallback): checked as the catalog's are, undefined when it will not do. */
  target<K extends RoutedMethod>(
    target: string,
    method: K,
    kind: CatalogModel['kind'],
    caller: KeyCaller,
  ): (Routed<K> & { model: CatalogModel }) | undefined;
  /** Whether the model's first deployment's provider has the method (502 `provider_unavailable` otherwise). */
  serves(model: CatalogModel, method: RoutedMethod): boolean;
}

const RPM_WINDOW_MS = 60_000;
const NONE: ReadonlyMap<string, number> = new Map();
const UNTRACKED: DeploymentHealth = {
  cooling: () => NONE,
  failed: () => undefined,
  succeeded: () => undefined,
  started: () => () => undefined,
  inFlight: () => 0,
  latencyMs: () => undefined,
  states: () => [],
  close: async () => undefined,
};

export function createRouter(d: RouterDeps): Router {
  const { clock } = d;
  const health: DeploymentHealth = d.health ?? UNTRACKED;
  const random = d.random ?? Math.random;
  const { attemptsTotal, fallbacksTotal, retriesTotal } = routerMetrics(d.metrics ?? noMetrics);

  function routed<K extends RoutedMethod>(plan: Plan, method: K, content: Group | undefined): Routed<K> {
    let served: Served | undefined;
    const call = async (req: Parameters<Fn<K>>[0], signal?: AbortSignal, trace?: Trace) => {
      // A whole answer is read whole in the attempt only when a content refusal in its finish reason can go elsewhere.
      const whole = !!content && method === 'chat' && (req as { stream?: boolean }).stream === false;
      const run = (groups: Group[]) => attemptAll(plan, groups, method, req, whole, signal, trace, (s) => (served = s));
      try {
        const out = await run(plan.groups);
        if (!(content && whole && out.finish === 'content_filter')) return out.value;
        fallbacksTotal.inc({ model: plan.model.id, to: content.model.id });
        return (await run([content])).value;
      } catch (err) {
        if (!(content && err instanceof PlatformError && err.code === 'content_filter') || signal?.aborted) throw err;
        fallbacksTotal.inc({ model: plan.model.id, to: content.model.id });
        return (await run([content])).value;
      }
    };
    const models = [...plan.groups.map((g) => g.model), ...(content ? [content.model] : [])];
    return { upstream: call as unknown as Fn<K>, served: () => served, models };
  }

  async function attemptAll<K extends RoutedMethod>(
    plan: Plan,
    groups: Group[],
    method: K,
    req: Parameters<Fn<K>>[0],
    whole: boolean,
    signal: AbortSignal | undefined,
    trace: Trace | undefined,
    onServed: (s: Served) => void,
  ): Promise<{ value: Awaited<ReturnType<Fn<K>>>; finish?: string }> {
    const { policy, routed } = plan;
    const total = new AbortController();
    const totalMs = policy.timeout.totalMs;
    const totalTimer =
      totalMs === undefined
        ? undefined
        : setTimeout(
            () =>
              total.abort(
                new UpstreamTimeout(`No deployment of ${plan.model.id} answered within ${totalMs} ms`, { code: 'upstream_timeout' }),
              ),
            totalMs,
          );
    const callSignal = signal ? AbortSignal.any([signal, total.signal]) : total.signal;
    let attempts = 0;
    let last: unknown;
    let earliest = Infinity;
    try {
      for (const [gi, group] of groups.entries()) {
        if (gi > 0 && group.model.id !== plan.model.id) fallbacksTotal.inc({ model: plan.model.id, to: group.model.id });
        const cooling = routed ? health.cooling(group.model.id, clock.now()) : NONE;
        const order =
          group.deployments.length > 1
            ? orderDeployments(group.strategy, group.model.id, group.deployments, { health, random })
            : group.deployments;
        for (const dep of order) {
          const ref: DeploymentRef = { model: group.model.id, deployment: dep.id };
          const until = cooling.get(dep.id);
          if (until !== undefined) {
            earliest = Math.min(earliest, until);
            continue;
          }
          if (dep.rpm && d.counters) {
            const taken = await d.counters
              .takeRequest(`deployment:${ref.model}@${ref.deployment}`, dep.rpm, RPM_WINDOW_MS, clock.now())
              .catch(() => ({ admitted: true as const }));
            if (!taken.admitted) {
              earliest = Math.min(earliest, taken.retryAt);
              continue;
            }
          }
          const fn = d.providerOf(group.model, dep, routed)[method] as Fn<K> | undefined;
          if (!fn) continue;
          const upstreamReq = { ...req, model: dep.upstream.model ?? group.model.id } as Parameters<Fn<K>>[0];
          for (let n = 0; ; n++) {
            if (total.signal.aborted) throw last ?? total.signal.reason;
            attempts++;
            const labels = { model: ref.model, deployment: ref.deployment };
            try {
              // A stream that breaks after its first piece reached the caller is not failed over, but counts towards a cooldown.
              const broken = () => {
                if (routed) health.failed(ref, group.model.routing?.cooldown ?? plan.policy.cooldown, clock.now(), 'broken-stream');
              };
              const out = await attempt(ref, routed, policy.timeout.attemptMs, method, whole, callSignal, trace, fn, upstreamReq, broken);
              attemptsTotal.inc({ ...labels, outcome: 'ok' });
              onServed({ model: group.model, deployment: dep.id, attempts });
              return out;
            } catch (err) {
              if (signal?.aborted) throw signal.reason ?? err;
              const failure = total.signal.aborted && err === total.signal.reason ? (last ?? err) : err;
              const v = judge(err, policy.retry, clock.now());
              if (v.kind === 'caller') {
                attemptsTotal.inc({ ...labels, outcome: 'rejected' });
                throw err;
              }
              attemptsTotal.inc({ ...labels, outcome: 'failed' });
              last = failure;
              if (routed)
                health.failed(
                  ref,
                  group.model.routing?.cooldown ?? plan.policy.cooldown,
                  clock.now(),
                  v.what,
                  v.kind === 'next' ? v.until : undefined,
                );
              if (total.signal.aborted) throw last;
              if (v.kind !== 'retry' || n >= policy.retry.attempts) break;
              retriesTotal.inc(labels);
              try {
                await pause(retryWait(v, policy.retry, n, random), callSignal);
              } catch (paused) {
                if (signal?.aborted) throw signal.reason ?? paused;
                throw last;
              }
            }
          }
        }
      }
    } finally {
      clearTimeout(totalTimer);
    }
    if (attempts === 0 && Number.isFinite(earliest)) {
      const seconds = Math.max(1, Math.ceil((earliest - clock.now()) / 1000));
      throw new Unavailable(`Every deployment of ${plan.model.id} is cooling down or at its rate limit; retry in ${seconds} s`, seconds, {
        code: 'no_healthy_deployment',
      });
    }
    if (last === undefined)
      throw new Unavailable(`No deployment of ${plan.model.id} can serve this call`, 1, { code: 'no_healthy_deployment' });
    throw last as Error;
  }

  /** One attempt on one deployment: its span, its in-flight count, its timeout to the first byte. */
  async function attempt<K extends RoutedMethod>(
    ref: DeploymentRef,
    routed: boolean,
    attemptMs: number | undefined,
    method: K,
    whole: boolean,
    callSignal: AbortSignal,
    trace: Trace | undefined,
    fn: Fn<K>,
    req: Parameters<Fn<K>>[0],
    broken: () => void,
  ): Promise<{ value: Awaited<ReturnType<Fn<K>>>; finish?: string }> {
    const own = new AbortController();
    const timer =
      attemptMs === undefined
        ? undefined
        : setTimeout(
            () =>
              own.abort(
                new UpstreamTimeout(`${ref.model}@${ref.deployment} gave no first byte within ${attemptMs} ms`, {
                  code: 'upstream_timeout',
                }),
              ),
            attemptMs,
          );
    const signal = AbortSignal.any([callSignal, own.signal]);
    const { span, trace: at } = startSpan(trace, `model attempt ${ref.model}@${ref.deployment}`, {
      'gen_ai.request.model': ref.model,
      'model.deployment': ref.deployment,
    });
    const release = routed ? health.started(ref) : () => undefined;
    const startedAt = clock.now();
    try {
      const answer = aborting((fn as (r: unknown, s: AbortSignal, t: Trace) => Promise<unknown>)(req, signal, at), signal);
      let value = (await answer) as Awaited<ReturnType<Fn<K>>>;
      let finish: string | undefined;
      if (method === 'chat') {
        const s = value as unknown as ChatStream;
        const read = whole ? await aborting(wholeAnswer(s), signal) : await aborting(firstPiece(s), signal);
        value = read.stream as unknown as Awaited<ReturnType<Fn<K>>>;
        finish = 'finish' in read ? (read.finish as string) : undefined;
        void read.stream.done.then(
          (r) => {
            release();
            if (r.finishReason === 'error' && !callSignal.aborted) broken();
          },
          () => {
            release();
            if (!callSignal.aborted) broken();
          },
        );
      } else release();
      if (routed) health.succeeded(ref, clock.now() - startedAt);
      span.setAttribute('model.attempt.outcome', 'ok');
      span.end();
      return { value, finish };
    } catch (err) {
      release();
      span.setAttribute('model.attempt.outcome', 'failed');
      spanFailed(span, err);
      span.end();
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  const lookupOrThrow = (id: string) => d.lookup(id);
  return {
    open(model, method, caller) {
      const plan = planOf(model, caller, lookupOrThrow);
      const t = model.routing?.contentFallback;
      const content = t && method === 'chat' ? targetGroup(t, model.kind, caller, lookupOrThrow, false) : undefined;
      const c = model.routing?.contextFallback;
      const context = c && method === 'chat' ? targetGroup(c, model.kind, caller, lookupOrThrow, false) : undefined;
      const r = routed(plan, method, content);
      return context ? { ...r, models: [...r.models, context.model] } : r;
    },
    target(target, method, kind, caller) {
      const g = targetGroup(target, kind, caller, lookupOrThrow, false);
      if (!g) return undefined;
      const plan: Plan = { model: g.model, policy: planOf(g.model, caller, lookupOrThrow).policy, routed: true, groups: [g] };
      return { ...routed(plan, method, undefined), model: g.model };
    },
    serves: (model, method) => !!d.providerOf(model, { id: 'default', upstream: model.upstream, weight: 1 }, false)[method],
  };
}

/** `p`, or the signal's reason as soon as it aborts (a provider that ignores its signal cannot stall the call). */
function aborting<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    p.catch(() => undefined);
    return Promise.reject(signal.reason as Error);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
