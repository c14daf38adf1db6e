import { systemClock, type Clock } from '../clock';
import { BadRequest, UpstreamFailed } from '../errors';
import { hashingEmbedder, type Embedder } from '../search/embedder';
import { cacheKey, chatCache } from './cache';
import { costOf, usageStore } from './usage';
import { guardInput, guardOutput, redact } from './guard';
import type { ChatProvider } from './chat';
import { countTokens, localChat } from './local-chat';
import { isActive, loadCatalog, type CatalogModel } from './catalog';
import { DeactivatedModel, InvalidKey, MissingKey, ModelNotAllowed, UnknownModel } from './errors';
import { parseApiKeyHeader } from './key-options';
import { keyStore, openModelsDb, type KeyStore } from './keys';
import type { ModelsService } from './service';

export interface ModelsCore {
  service: ModelsService;
  keys: KeyStore;
  catalog: readonly CatalogModel[];
  close(): void;
}

export interface ModelsCoreOptions {
  /** SQLite file, or `:memory:`. */
  file: string;
  clock?: Clock;
  durable?: boolean;
  /** A catalog JSON file; the built-in catalog when absent. */
  catalogFile?: string;
  /** How long a cached answer is served (`is_cache` 1). */
  cacheTtlSeconds?: number;
}

/** Wires the model gateway over its embedded store and its catalog. */
export function openModelsCore(opts: ModelsCoreOptions): ModelsCore {
  const catalog = loadCatalog(opts.catalogFile);
  const db = openModelsDb(opts.file, { durable: opts.durable });
  const clock = opts.clock ?? systemClock;
  const keys = keyStore(db, clock);
  const usage = usageStore(db);
  const byId = new Map(catalog.map((m) => [m.id, m]));
  const cache = chatCache({ clock: opts.clock ?? systemClock, ttlMs: (opts.cacheTtlSeconds ?? 3600) * 1000, maxEntries: 10_000, maxBytes: 64 * 1024 * 1024 });
  // Vendor providers arrive with their routes; the offline one is always here.
  const providers: Partial<Record<CatalogModel['upstream']['provider'], ChatProvider>> = { local: localChat() };
  // The offline embedding model is the search service's default embedder, so vectors agree.
  const embedders: Partial<Record<CatalogModel['upstream']['provider'], Embedder>> = { local: hashingEmbedder() };
  const allowed = (k: { models: string[] | null }, id: string) => !k.models || k.models.includes(id);

  const service: ModelsService = {
    authenticate(header) {
      if (!header?.trim()) throw new MissingKey();
      // The key first: a stranger learns nothing about options from a 400.
      const found = keys.verify(header.split('/', 1)[0]!.trim());
      if (!found) throw new InvalidKey();
      return { key: found, options: parseApiKeyHeader(header).options };
    },
    listModels: async ({ caller }) => catalog.filter((m) => allowed(caller.key, m.id)),
    async chat({ caller, model, messages, maxTokens, temperature }, call) {
      if (model.kind !== 'chat') throw new BadRequest(`The model ${model.id} is not a chat model`, { code: 'unsupported_model' });
      const provider = providers[model.upstream.provider];
      if (!provider) throw new UpstreamFailed(`No provider ${model.upstream.provider} is configured for ${model.id}`, { code: 'provider_unavailable' });
      const promptTokens = messages.reduce((n, m) => n + countTokens(m.text), 0);
      if (promptTokens > model.contextLength) {
        throw new BadRequest(`This model's maximum context length is ${model.contextLength} tokens; the messages have ${promptTokens}.`, { code: 'context_length_exceeded' });
      }
      const level = caller.options.use_guard;
      const redacted = new Set<string>();
      const sent = level === 0 ? messages : messages.map((m) => {
        const g = m.role === 'user' ? guardInput(m.text) : redact(m.text);
        g.redacted.forEach((d) => redacted.add(d));
        return { ...m, text: g.text };
      });
      const guard = level === 0 ? 'off' : redacted.size ? `redacted:${[...redacted].join(',')}` : 'passed';
      const request = { model: model.upstream.model ?? model.id, messages: sent, maxTokens: maxTokens ?? model.maxOutputTokens, temperature };
      const upstream = async () => provider.chat(request, call?.signal);
      const { stream, outcome } = caller.options.is_cache === 0
        ? { stream: await upstream(), outcome: 'BYPASS' as const }
        : await cache.through(cacheKey(caller.key.tenant, { catalog: model.id, ...request }), upstream);
      if (level < 2) return { ...stream, cache: outcome, guard };
      let blocked = false;
      const pieces = guardOutput(stream.pieces, () => (blocked = true));
      const done = stream.done.then((d) => (blocked ? { ...d, finishReason: 'content_filter' as const } : d));
      return { pieces, done, cache: outcome, guard };
    },
    async embed({ model, inputs }) {
      if (model.kind !== 'embedding') throw new BadRequest(`The model ${model.id} is not an embedding model`, { code: 'unsupported_model' });
      const embedder = embedders[model.upstream.provider];
      if (!embedder) throw new UpstreamFailed(`No provider ${model.upstream.provider} is configured for ${model.id}`, { code: 'provider_unavailable' });
      const counts = inputs.map(countTokens);
      const over = counts.findIndex((n) => n > model.contextLength);
      if (over >= 0) throw new BadRequest(`Input ${over} has ${counts[over]} tokens; the model's maximum is ${model.contextLength}.`, { code: 'context_length_exceeded' });
      return { vectors: await embedder.embed(inputs), promptTokens: counts.reduce((a, b) => a + b, 0) };
    },
    recordUsage(u) {
      const now = clock.now();
      const { is_cache: _c, use_guard: _g, app_name: _a, ...profile } = u.caller.options;
      void usage.record({
        at: now, keyId: u.caller.key.id, tenant: u.caller.key.tenant, model: u.model.id, route: u.route, status: u.status,
        latencyMs: now - u.startedAt, upstreamMs: null, tokensIn: u.tokensIn, tokensOut: u.tokensOut, wordsSent: u.wordsSent,
        wordsReceived: u.wordsReceived, cache: u.cache, guard: u.guard, options: profile,
      }, costOf(u.model, u.tokensIn, u.tokensOut)).catch(() => undefined);
    },
    usage: async ({ caller, from, to }) => usage.totals(caller.key.tenant, from.getTime(), to.getTime()),
    model({ caller, id }) {
      const m = byId.get(id);
      if (!m) throw new UnknownModel(id);
      if (!isActive(m)) throw new DeactivatedModel(id, m.status);
      if (!allowed(caller.key, id)) throw new ModelNotAllowed(id);
      return m;
    },
  };
  return { service, keys, catalog, close: () => db.close() };
}
