import type { Clock } from '../../shared/clock';
import { UpstreamFailed } from '../../shared/errors';
import type { Trace } from '../../shared/telemetry/tracing';
import { isActive, type CatalogModel } from '../catalog/catalog';
import type { CatalogSnapshot } from '../catalog/effective';
import type { ModelProvider } from '../neutral';
import type { Offload } from '../offload/offload';
import type { KeyCaller } from '../service';
import type { Meter } from '../usage/metering';
import { wordCount } from '../usage/usage';

/** The route of the usage row an embedding for the semantic cache is recorded under. */
export const SEMANTIC_ROUTE = 'semantic-cache';

/** An embedding for the semantic cache, made for `caller`. */
export type SemanticEmbed = (caller: KeyCaller, text: string, signal?: AbortSignal, trace?: Trace) => Promise<Float32Array>;

/**
 * Why a catalog model cannot embed for the semantic cache (undefined when it can): checked at start
 * (MODELS_SEMANTIC_CACHE_MODEL) and again at each call, since an administrator may change the catalog.
 */
export function semanticModelProblem(snapshot: Pick<CatalogSnapshot, 'byId'>, id: string): string | undefined {
  const m = snapshot.byId.get(id)?.model;
  if (!m) return `${id} is not in the catalog`;
  if (m.kind !== 'embedding') return `${id} is not an embedding model (it is ${m.kind})`;
  if (!isActive(m)) return `${id} is not active (${m.status})`;
  return undefined;
}

/**
 * Embeds through the models service's own provider for the catalog model (no HTTP; the built-in
 * `local-embed` runs long texts in the offload's worker threads). The call is the caller's: one
 * usage row under their key, route `semantic-cache`, its tokens counted against the key's budget
 * (an embedding costs, and whoever asked for the cache pays it). It is not admitted under the key's
 * request rate (the chat call it serves already was), and the key's model list does not apply: the
 * gateway picks the model, not the caller.
 */
export function semanticEmbedder(d: {
  catalog: { current(): Pick<CatalogSnapshot, 'byId'> };
  model: string;
  providerOf(model: CatalogModel): ModelProvider;
  meter: Meter;
  offload: Offload;
  clock: Clock;
}): SemanticEmbed {
  return async (caller, text, signal, trace) => {
    const snapshot = d.catalog.current();
    const problem = semanticModelProblem(snapshot, d.model);
    if (problem) throw new Error(`the semantic cache cannot embed: ${problem}`);
    const model = snapshot.byId.get(d.model)!.model;
    const provider = d.providerOf(model);
    if (!provider.embed) throw new UpstreamFailed(`The ${model.upstream.provider} provider cannot serve ${model.id} here`);
    const m = { caller, model, route: SEMANTIC_ROUTE };
    const startedAt = d.clock.now();
    try {
      const r = await provider.embed({ model: model.upstream.model ?? model.id, inputs: [text] }, signal, trace);
      const upstreamMs = d.clock.now() - startedAt;
      const vector = r.vectors[0];
      if (!vector) throw new UpstreamFailed(`${model.id} answered no vector`);
      const tokensIn = r.promptTokens ?? (await d.offload.run('count', [[text], Infinity], text.length, signal));
      d.meter.record(m, { end: 'ok', startedAt, upstreamMs, tokensIn, wordsSent: wordCount(text), cache: 'BYPASS', guard: 'off' });
      return vector;
    } catch (err) {
      d.meter.record(m, { end: signal?.aborted ? 'left' : { failed: err }, startedAt, guard: 'n/a' });
      throw err;
    }
  };
}
