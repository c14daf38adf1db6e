import { readFileSync } from 'node:fs';
import { z } from 'zod';

/**
 * The model catalog (DECISIONS): every model the gateway offers, which provider group's routes
 * name it, where its upstream is, and what it costs and accepts. The built-in models (the offline
 * `local` provider's) are always there unless a catalog file (`MODELS_CATALOG_FILE`) says
 * otherwise; the file's models are added to them, and one with a built-in's id takes its place.
 */
export const INPUT_KINDS = ['text', 'image', 'Docs', 'Video'] as const;

const Upstream = z.object({
  /** `local` (built in, offline), `azure-openai`, `gemini`, `bedrock`, `openai-compatible`. */
  provider: z.enum(['local', 'azure-openai', 'gemini', 'bedrock', 'openai-compatible']),
  baseUrl: z.url().optional(),
  /** The vendor's deployment or model name, when it differs from the catalog id. */
  model: z.string().min(1).optional(),
  /** Name of the environment variable holding the upstream credential (never the credential itself). */
  credentialEnv: z
    .string()
    .regex(/^[A-Z_][A-Z0-9_]*$/)
    .optional(),
  /** Bedrock's AWS region (`us-east-1` when absent). */
  region: z
    .string()
    .regex(/^[a-z0-9-]+$/)
    .optional(),
  /** Azure OpenAI's `api-version` (a GA version with every operation when absent). */
  apiVersion: z.string().min(1).max(40).optional(),
});

/**
 * One deployment of a catalog model (issue 35): an upstream of its own (vendor, endpoint,
 * credential, region), its share of the traffic under weighted routing, and its own limit.
 */
/** A deployment's id: unique within its model; names it in metrics, the admin API, the graph and `x-platform-route`. */
export const DeploymentId = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[\w.-]+$/);

export const Deployment = z.object({
  id: DeploymentId,
  upstream: Upstream,
  /** Its share under `weighted` routing (default 1; 0: only when the others fail). */
  weight: z.number().min(0).max(1_000_000).default(1),
  /** Requests per minute this deployment takes (every replica together); skipped while at it. */
  rpm: z.int().positive().optional(),
});
export type Deployment = z.output<typeof Deployment>;

export const ROUTING_STRATEGIES = ['fallback', 'weighted', 'least-busy', 'latency'] as const;

/** A model id, or `model@deployment` to name one deployment of it. */
export const RouteTarget = z
  .string()
  .min(1)
  .max(265)
  .regex(/^[\w.:/-]+(@[\w.-]+)?$/);

/** A routing policy's retries and timeouts, bounded once for the catalog and the `x-platform-route` header. */
export const RETRY = {
  attempts: z.int().min(0).max(5),
  on: z.array(z.int().min(400).max(599)).max(20),
  backoffMs: z.int().min(0).max(60_000),
  maxRetryAfterMs: z.int().min(0).max(600_000),
};
export const TIMEOUT = {
  attemptMs: z.int().min(100).max(600_000),
  totalMs: z.int().min(100).max(1_800_000),
};

/**
 * How a call to a model picks among its deployments and where it goes when they fail (issue 35);
 * overridable per request by the `x-platform-route` header (core/models/routing). Every field has
 * a default, so `{}` is a whole policy.
 */
export const Routing = z.object({
  /** `fallback`: the deployments in order; `weighted`: at random by weight; `least-busy`: fewest calls in flight; `latency`: fastest lately. */
  strategy: z.enum(ROUTING_STRATEGIES).default('fallback'),
  /** Other catalog models (or `model@deployment`) tried in order once this model's deployments failed. */
  fallbacks: z.array(RouteTarget).max(10).default([]),
  /** Where a prompt over this model's context length goes instead of a 400. */
  contextFallback: RouteTarget.optional(),
  /** Where a vendor's content refusal (`content_filter`) goes instead of reaching the caller. */
  contentFallback: RouteTarget.optional(),
  retry: z
    .object({
      /** Retries on one deployment before the next is tried. */
      attempts: RETRY.attempts.default(1),
      /** The vendor statuses worth another try (a failed connection and a timeout always are). */
      on: RETRY.on.default([429, 500, 502, 503, 504]),
      /** The first retry's delay, doubled each time, with jitter. */
      backoffMs: RETRY.backoffMs.default(200),
      /** The longest `Retry-After` honoured by waiting; a longer one cools the deployment down and the next is tried. */
      maxRetryAfterMs: RETRY.maxRetryAfterMs.default(5_000),
    })
    .default({ attempts: 1, on: [429, 500, 502, 503, 504], backoffMs: 200, maxRetryAfterMs: 5_000 }),
  /** Milliseconds one attempt (`attemptMs`), and every attempt together (`totalMs`), may take to the first byte of answer. */
  timeout: z.object(TIMEOUT).partial().default({}),
  cooldown: z
    .object({
      /** Failures within `windowSeconds` that put a deployment in cooldown. */
      failures: z.int().min(1).max(1000).default(3),
      windowSeconds: z.int().min(1).max(3600).default(60),
      /** How long it is skipped before it is tried again (a longer `Retry-After` wins, up to an hour). */
      seconds: z.int().min(1).max(3600).default(30),
    })
    .default({ failures: 3, windowSeconds: 60, seconds: 30 }),
});
export type Routing = z.output<typeof Routing>;

const CatalogModelFields = z.object({
  id: z
    .string()
    .min(1)
    .max(200)
    .regex(/^[\w.:@/-]+$/),
  /** Which route family serves it: `A` chat completions, `B` content generation, `C` messages; `embedding` for embedding models. */
  group: z.enum(['A', 'B', 'C', 'embedding']),
  kind: z.enum(['chat', 'embedding', 'image', 'transcription']).default('chat'),
  upstream: Upstream,
  contextLength: z.int().positive(),
  /** An embedding model's vector size (search needs it to build its index). */
  dimensions: z.int().positive().max(65_536).optional(),
  maxOutputTokens: z.int().positive().optional(),
  /** Prices in US dollars: per million tokens, and per image and per minute of audio (docs/spend.md). */
  price: z
    .object({
      inputPerMillion: z.number().min(0),
      outputPerMillion: z.number().min(0),
      /** Prompt tokens the vendor read from its prompt cache; `inputPerMillion` when absent. */
      cachedInputPerMillion: z.number().min(0).optional(),
      /** Each image generated. */
      perImage: z.number().min(0).optional(),
      /** Transcription: per minute of audio, billed by the second. */
      audioPerMinute: z.number().min(0).optional(),
    })
    .default({ inputPerMillion: 0, outputPerMillion: 0 }),
  /** `Active`, or a label saying why it is not (`Deactivated`, `Retired 2025-06`, ...). */
  status: z.string().min(1).default('Active'),
  inputKinds: z.array(z.enum(INPUT_KINDS)).min(1).default(['text']),
  /** Several upstreams for one model (issue 35); without them `upstream` is its one deployment. */
  deployments: z.array(Deployment).min(1).max(50).optional(),
  /** How calls pick among the deployments and fall back (defaults when absent). */
  routing: Routing.optional(),
});

/**
 * A catalog model: `upstream`, or `deployments` (or both: `upstream` then describes the model for
 * listings and defaults to the first deployment's). Deployment ids are unique within the model.
 */
export const CatalogModel = CatalogModelFields.extend({ upstream: Upstream.optional() })
  .check(
    z.refine((m) => m.upstream !== undefined || m.deployments !== undefined, {
      message: 'a model needs an upstream or deployments',
      path: ['upstream'],
    }),
  )
  .check(
    z.refine((m) => !m.deployments || new Set(m.deployments.map((d) => d.id)).size === m.deployments.length, {
      message: 'deployment ids must be unique within a model',
      path: ['deployments'],
    }),
  )
  .transform((m) => ({ ...m, upstream: m.upstream ?? m.deployments![0].upstream }));
export type CatalogModel = z.output<typeof CatalogModel>;

/** A model's deployments: its own list, or its `upstream` as the one deployment `default`. */
export const deploymentsOf = (m: CatalogModel): Deployment[] => m.deployments ?? [{ id: 'default', upstream: m.upstream, weight: 1 }];

export const Catalog = z
  .object({ models: z.array(CatalogModel).min(1) })
  .check(z.refine((c) => new Set(c.models.map((m) => m.id)).size === c.models.length, { message: 'model ids must be unique' }));

/** The built-in catalog: the offline `local` provider's extractive chat model, embedding model and abstract image model. */
export const DEFAULT_CATALOG: z.input<typeof Catalog> = {
  models: [
    {
      id: 'local-chat',
      group: 'A',
      kind: 'chat',
      upstream: { provider: 'local' },
      contextLength: 8192,
      maxOutputTokens: 1024,
      price: { inputPerMillion: 0, outputPerMillion: 0 },
      status: 'Active',
      inputKinds: ['text'],
    },
    {
      id: 'local-embed',
      group: 'embedding',
      kind: 'embedding',
      upstream: { provider: 'local' },
      contextLength: 8192,
      dimensions: 1024,
      price: { inputPerMillion: 0, outputPerMillion: 0 },
      status: 'Active',
      inputKinds: ['text'],
    },
    {
      id: 'local-image',
      group: 'A',
      kind: 'image',
      upstream: { provider: 'local' },
      contextLength: 4000,
      price: { inputPerMillion: 0, outputPerMillion: 0 },
      status: 'Active',
      inputKinds: ['text'],
    },
  ],
};

export const BUILTIN_IDS = DEFAULT_CATALOG.models.map((m) => m.id);

/**
 * A catalog file: its models, added to the built-in ones (a model with a built-in's id replaces
 * that one), and `builtins`, which built-in models stay: all (`true`, the default), none
 * (`false`), or the ids listed.
 */
export const CatalogFile = z
  .object({
    builtins: z
      .union([z.boolean(), z.array(z.enum(BUILTIN_IDS as [string, ...string[]]))], {
        error: `true, false, or a list of built-in model ids (${BUILTIN_IDS.join(', ')})`,
      })
      .default(true),
    models: z.array(CatalogModel).default([]),
  })
  .check(z.refine((c) => new Set(c.models.map((m) => m.id)).size === c.models.length, { message: 'model ids must be unique' }));

export class CatalogError extends Error {}

/** Where a catalog model comes from, for the start-up log; `admin`: the admin API's entry (catalog-store.ts). */
export type CatalogSource = 'built-in' | 'file' | 'file, in place of the built-in' | 'admin';

export interface LoadedCatalog {
  models: CatalogModel[];
  sources: ReadonlyMap<string, CatalogSource>;
}

const issues = (e: z.ZodError, whole = '(file)') => e.issues.map((i) => `${i.path.join('.') || whole}: ${i.message}`).join('; ');

/** The built-in catalog and what `file` adds, replaces or leaves out; a bad file stops start-up with a message naming the problem. */
export function loadCatalogFile(file?: string): LoadedCatalog {
  const builtin = Catalog.parse(DEFAULT_CATALOG).models;
  if (!file) return { models: builtin, sources: new Map(builtin.map((m) => [m.id, 'built-in'])) };
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new CatalogError(`MODELS_CATALOG_FILE ${file}: ${(err as Error).message}`);
  }
  const parsed = CatalogFile.safeParse(raw);
  if (!parsed.success) throw new CatalogError(`model catalog ${file}: ${issues(parsed.error)}`);
  const { builtins, models } = parsed.data;
  const fromFile = new Map(models.map((m) => [m.id, m]));
  const kept = builtin.filter((m) => builtins === true || (Array.isArray(builtins) && builtins.includes(m.id)) || fromFile.has(m.id));
  const all = [...kept.map((m) => fromFile.get(m.id) ?? m), ...models.filter((m) => !BUILTIN_IDS.includes(m.id))];
  if (!all.length) throw new CatalogError(`model catalog ${file}: no model (no built-in kept, and none of its own)`);
  const sources = new Map<string, CatalogSource>(
    all.map((m) => [m.id, !fromFile.has(m.id) ? 'built-in' : BUILTIN_IDS.includes(m.id) ? 'file, in place of the built-in' : 'file']),
  );
  return { models: all, sources };
}

/**
 * One model as a catalog file's `models` hold it, checked exactly as the file's are (the admin API
 * adds and replaces models with these): the model, or what is wrong with it.
 */
export function parseCatalogEntry(raw: unknown): { model: CatalogModel } | { error: string } {
  const parsed = CatalogModel.safeParse(raw);
  return parsed.success ? { model: parsed.data } : { error: issues(parsed.error, '(entry)') };
}

/** The catalog's models (loadCatalogFile). */
export const loadCatalog = (file?: string): CatalogModel[] => loadCatalogFile(file).models;

export const isActive = (m: CatalogModel) => m.status.toLowerCase() === 'active';
