import { z } from 'zod';
import type { CatalogAdmin } from '../../../core/models/admin-api/catalog';
import { CatalogModel, INPUT_KINDS } from '../../../core/models/catalog/catalog';
import { defineAdmin, IfMatch, ifMatchVersion, ListQuery, pageAsk, pageBody, PageOf, withEtag } from '../../admin/common';
import type { Json } from '../../shared/openapi-schemas';
import type { ResponseSpec } from '../../shared/routes';

/**
 * The model catalog in the admin API (docs/admin.md): `GET /models` and `GET /models/{id}` for every
 * administrator, `PUT` (add, replace, reactivate) and `DELETE` (deactivate) for platform
 * administrators. The body of a PUT is a catalog entry exactly as the catalog file holds it
 * (camelCase, docs/catalog.example.json), checked as the file's are: 400 naming what is wrong.
 */
const tags = ['catalog'];
const Problem = z.object({ detail: z.string() });
const flag = z.enum(['true', 'false']).transform((v) => v === 'true');

const ModelPath = z.object({ id: z.string().min(1).max(200).describe('The model id (a `/` in it sent as %2F)') });
const ModelListQuery = ListQuery.extend({
  active: flag.optional().describe('Only the models calls reach (true), or only those they do not (false)'),
  source: z.enum(['file', 'admin']).optional().describe("`file`: the catalog file's or built-in entry; `admin`: one the admin API gave"),
}).describe('sort: `id` (default), `group`, `kind`, `provider`, `status`, `version`, `updated_at`; `-` for descending');

/** The answer of every catalog route (core/models/admin-api/catalog.ts's ModelView). */
export const AdminModel = z.object({
  id: z.string(),
  group: z.enum(['A', 'B', 'C', 'embedding']),
  kind: z.enum(['chat', 'embedding', 'image', 'transcription']),
  upstream: z.object({
    provider: z.string(),
    base_url: z.string().nullable(),
    model: z.string().nullable(),
    credential_env: z.string().nullable().describe('The name of the variable holding the credential, never the credential'),
    region: z.string().nullable(),
    api_version: z.string().nullable(),
  }),
  context_length: z.int(),
  dimensions: z.int().nullable(),
  max_output_tokens: z.int().nullable(),
  price: z.object({ input_per_million: z.number(), output_per_million: z.number() }),
  status: z.string().describe('`Active`, `Deactivated`, or the label the entry gives'),
  input_kinds: z.array(z.enum(INPUT_KINDS)),
  deployments: z
    .array(
      z.object({
        id: z.string(),
        provider: z.string(),
        base_url: z.string().nullable(),
        model: z.string().nullable(),
        region: z.string().nullable(),
        credential_env: z.string().nullable().describe('The name of the variable holding the credential, never the credential'),
        api_version: z.string().nullable(),
        weight: z.number().describe('Its share under weighted routing'),
        rpm: z.int().nullable().describe('Requests per minute it takes (every replica together); null: no limit of its own'),
      }),
    )
    .describe("Its deployments: the entry's own, or its `upstream` as the one deployment `default`"),
  source: z.enum(['file', 'admin']),
  active: z.boolean().describe('Whether calls reach it'),
  version: z.int().describe('Its ETag; 1 for a file model never changed'),
  updated_at: z.string().nullable(),
  updated_by: z.string().nullable(),
});

/** GET /models/{id}/deployments (core/models/admin-api/deployments.ts's DeploymentStateView). */
export const ModelDeploymentState = z.object({
  deployment: z.string(),
  provider: z.string(),
  region: z.string().nullable(),
  weight: z.number(),
  state: z.enum(['healthy', 'cooling']).describe('`cooling`: skipped by the router until `cooling_until`'),
  cooling_until: z.string().nullable().describe('When its cooldown ends (ISO 8601); null when healthy'),
  recent_failures: z.int().describe("Failures counted in the cooldown window (this replica's view)"),
  in_flight: z.int().describe('Calls this replica has in flight to it'),
  latency_ms: z.number().nullable().describe('Its recent latency to the first byte (a weighted mean); null before its first answer'),
  last_failure: z
    .object({ at: z.string(), what: z.string().describe('A vendor status, `timeout`, `connection` or `broken-stream`') })
    .nullable(),
});

/** A catalog file's entry, as the body of a PUT is documented (its defaults optional; `id` may be left out). */
const { $schema: _s, ...entrySchema } = z.toJSONSchema(CatalogModel, { io: 'input', unrepresentable: 'any' }) as Json;
const EntryBody: Json = { ...entrySchema, required: (entrySchema.required as string[]).filter((f) => f !== 'id') };
const EXAMPLE = {
  id: 'team-chat',
  group: 'A',
  kind: 'chat',
  upstream: { provider: 'local' },
  contextLength: 8192,
  maxOutputTokens: 1024,
  status: 'Active',
  inputKinds: ['text'],
};

const refused: Record<number, ResponseSpec> = {
  403: { description: 'Not an administrator; for a change, not a platform administrator', schema: Problem },
  404: { description: 'No such model', schema: Problem },
};
const changeFailures: Record<number, ResponseSpec> = {
  ...refused,
  412: { description: 'If-Match names a version the model no longer has: read it again', schema: Problem },
};

export const catalogAdminRoutes = (api: { catalog: CatalogAdmin }) => [
  defineAdmin({
    method: 'get',
    path: '/models',
    summary: 'List the catalog',
    description: "Every model of the catalog (the file's and the admin API's) with its state. Any administrator.",
    tags,
    input: { query: ModelListQuery },
    responses: { 200: { description: 'A page of models', schema: PageOf(AdminModel) }, 403: refused[403] },
    handle: async (q, { ctx }) => pageBody(await api.catalog.list({ ...pageAsk(q), active: q.active, source: q.source }, ctx)),
  }),
  defineAdmin({
    method: 'get',
    path: '/models/:id',
    summary: 'Read a model of the catalog',
    description: 'The ETag is its version, for If-Match.',
    tags,
    input: { path: ModelPath },
    responses: { 200: { description: 'The model', schema: AdminModel }, ...refused },
    handle: async (p, { ctx, res }) => withEtag(res, await api.catalog.get(p, ctx)),
  }),
  defineAdmin({
    method: 'get',
    path: '/models/:id/deployments',
    summary: "Read a model's deployments and their state",
    description:
      'Each deployment with whether the router skips it (in cooldown after failing, until when), its recent failures, calls ' +
      "in flight and latency, as the replica answering sees them (cooldowns are every replica's when Redis is set). Any administrator.",
    tags,
    input: { path: ModelPath },
    responses: { 200: { description: 'The deployments', schema: z.object({ items: z.array(ModelDeploymentState) }) }, ...refused },
    handle: async (p, { ctx }) => api.catalog.deployments(p, ctx),
  }),
  defineAdmin({
    method: 'put',
    path: '/models/:id',
    summary: 'Add or replace a model',
    description:
      'The body is a catalog entry as the catalog file holds it (camelCase; `id` may be left out). It replaces the ' +
      "file's entry of the same id, or adds a model, and (re)activates it. Every replica serves it within a second. " +
      'A `credentialEnv` may only be one the catalog file names for the same provider and `baseUrl`. ' +
      'Platform administrators only.',
    tags,
    input: { path: ModelPath, header: IfMatch, body: z.record(z.string(), z.unknown()) },
    docs: { body: { content: { 'application/json': EntryBody }, example: EXAMPLE, required: true } },
    responses: {
      200: { description: 'The model as now served', schema: AdminModel },
      400: { description: 'An entry the catalog file would refuse: what is wrong with it', schema: Problem },
      409: { description: 'The catalog holds its most models', schema: Problem },
      ...changeFailures,
    },
    handle: async (input, { ctx, res }) =>
      withEtag(res, await api.catalog.put({ id: input.id, entry: input.body, version: ifMatchVersion(input) }, ctx)),
  }),
  defineAdmin({
    method: 'delete',
    path: '/models/:id',
    summary: 'Deactivate a model',
    description:
      "Of either source: calls to it are refused as a deactivated model's (404 `model_deactivated`) until a PUT reactivates it. " +
      'Platform administrators only.',
    tags,
    input: { path: ModelPath, header: IfMatch },
    responses: { 200: { description: 'The model, `active` false', schema: AdminModel }, ...changeFailures },
    handle: async (input, { ctx, res }) =>
      withEtag(res, await api.catalog.deactivate({ id: input.id, version: ifMatchVersion(input) }, ctx)),
  }),
];
