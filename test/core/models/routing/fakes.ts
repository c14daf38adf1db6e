import { CatalogModel, type Deployment } from '../../../../core/models/catalog/catalog';
import { KeyOptions } from '../../../../core/models/keys/key-options';
import type { ChatRequest, ChatStream, ModelProvider } from '../../../../core/models/neutral';
import type { DeploymentHealth, DeploymentRef, CooldownPolicy } from '../../../../core/models/routing/health';
import type { RouteOverride } from '../../../../core/models/routing/route-header';
import { createRouter, type RouterDeps } from '../../../../core/models/routing/router';
import type { KeyCaller } from '../../../../core/models/service';
import { UpstreamFailed } from '../../../../core/shared/errors';
import { statusError } from '../../../../core/models/upstream/errors';

/** A chat catalog model with deployments `ids` (each upstream model `up-<id>`) and a routing policy. */
export function chatModel(
  id: string,
  ids: (string | { id: string; weight?: number; rpm?: number })[],
  routing?: object,
  extra: object = {},
) {
  return CatalogModel.parse({
    id,
    group: 'A',
    contextLength: 1000,
    deployments: ids.map((x) => {
      const d = typeof x === 'string' ? { id: x } : x;
      return { ...d, upstream: { provider: 'openai-compatible', baseUrl: `http://${d.id}.test`, model: `up-${d.id}` } };
    }),
    ...(routing && { routing }),
    ...extra,
  });
}

export const callerOf = (models: string[] | null = null, route?: RouteOverride): KeyCaller =>
  ({ key: { id: 'k', tenant: 't', models }, options: KeyOptions.parse({}), ...(route && { route }) }) as unknown as KeyCaller;

/** A stream of `pieces`, failing with `err` after `failAt` of them when given. */
export function streamOf(
  pieces: string[],
  failAt?: number,
  err: Error = new UpstreamFailed('The connection to Fake failed (ECONNRESET)', { code: 'upstream_unavailable' }),
): ChatStream {
  let resolveDone!: (d: Awaited<ChatStream['done']>) => void;
  const done = new Promise<Awaited<ChatStream['done']>>((r) => (resolveDone = r));
  async function* gen() {
    for (const [i, p] of pieces.entries()) {
      if (i === failAt) {
        resolveDone({ finishReason: 'error', usage: { promptTokens: 1, completionTokens: i } });
        throw err;
      }
      yield p;
    }
    if (failAt !== undefined && failAt >= pieces.length) {
      resolveDone({ finishReason: 'error', usage: { promptTokens: 1, completionTokens: pieces.length } });
      throw err;
    }
    resolveDone({ finishReason: 'stop', usage: { promptTokens: 1, completionTokens: pieces.length } });
  }
  return { pieces: gen(), done };
}

export const vendorStatus = (status: number, headers: Record<string, string> = {}, body = '{}') =>
  statusError('Fake', status, body, headers);

/** Waits for the signal, then rejects with its reason: an upstream that never answers. */
export const stall = (signal?: AbortSignal) =>
  new Promise<never>((_, reject) => signal?.addEventListener('abort', () => reject(signal.reason as Error), { once: true }));

export type Behaviour = (req: ChatRequest, signal?: AbortSignal) => Promise<ChatStream>;

/** Providers per `<model>@<deployment>`; every chat request they got, in order. */
export function fakeProviders(behaviours: Record<string, Behaviour>) {
  const calls: { target: string; model: string }[] = [];
  const providerOf = (m: CatalogModel, dep: Deployment): ModelProvider => ({
    chat: (req, signal) => {
      const target = `${m.id}@${dep.id}`;
      calls.push({ target, model: req.model });
      const b = behaviours[target] ?? (async () => streamOf(['ok']));
      return b(req, signal);
    },
  });
  return { providerOf, calls };
}

/** A DeploymentHealth as small as the router's tests need: cooldowns after `failures`, in flight, latency. */
export function fakeHealth() {
  const key = (d: DeploymentRef) => `${d.model}@${d.deployment}`;
  const until = new Map<string, number>();
  const counts = new Map<string, number>();
  const busy = new Map<string, number>();
  const latency = new Map<string, number>();
  const failures: { ref: string; what: string; until?: number }[] = [];
  const health: DeploymentHealth & {
    failures: typeof failures;
    cool(ref: string, at: number): void;
    setBusy(ref: string, n: number): void;
    setLatency(ref: string, ms: number): void;
  } = {
    failures,
    cool: (ref, at) => until.set(ref, at),
    setBusy: (ref, n) => busy.set(ref, n),
    setLatency: (ref, ms) => latency.set(ref, ms),
    cooling: (model, now) =>
      new Map([...until].filter(([k, t]) => k.startsWith(`${model}@`) && t > now).map(([k, t]) => [k.slice(model.length + 1), t])),
    failed(d, policy: CooldownPolicy, now, what, at) {
      failures.push({ ref: key(d), what, ...(at !== undefined && { until: at }) });
      const n = (counts.get(key(d)) ?? 0) + 1;
      counts.set(key(d), n);
      if (at !== undefined) until.set(key(d), at);
      else if (n >= policy.failures) until.set(key(d), now + policy.seconds * 1000);
    },
    succeeded: (d, ms) => void latency.set(key(d), ms),
    started(d) {
      busy.set(key(d), (busy.get(key(d)) ?? 0) + 1);
      return () => busy.set(key(d), busy.get(key(d))! - 1);
    },
    inFlight: (d) => busy.get(key(d)) ?? 0,
    latencyMs: (d) => latency.get(key(d)),
    states: () => [],
    close: async () => undefined,
  };
  return health;
}

/** A router over `models` (looked up by id) with fake providers and health. */
export function routerOver(models: CatalogModel[], behaviours: Record<string, Behaviour>, deps: Partial<RouterDeps> = {}) {
  const { providerOf, calls } = fakeProviders(behaviours);
  const health = fakeHealth();
  let now = 1_000_000;
  const router = createRouter({
    providerOf,
    health,
    lookup: (id) => models.find((m) => m.id === id),
    clock: { now: () => now },
    random: () => 0.5,
    ...deps,
  });
  return { router, calls, health, tick: (ms: number) => (now += ms), now: () => now };
}

export async function textOf(s: ChatStream) {
  let t = '';
  for await (const p of s.pieces) t += p;
  return t;
}

export const ask = (model = 'x'): ChatRequest => ({ model, messages: [{ role: 'user', text: 'hi' }] });
