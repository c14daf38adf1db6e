import { z } from 'zod';
import type { ModelsAdminApi } from '../../../core/models/admin-api';
import type { ResponseSpec } from '../../shared/routes';
import { created, defineAdmin, ListQuery, pageAsk, PageOf } from '../../admin/common';

/**
 * Model keys in the admin API (docs/admin.md): the key itself only in the answers of create and
 * rotate; lists and reads show its prefix. A realm administrator works on its tenants' keys only.
 */
const tags = ['model keys'];
const Problem = z.object({ detail: z.string() });
export const refused: Record<number, ResponseSpec> = {
  403: { description: 'Not an administrator', schema: Problem },
  404: { description: "No such key, or another tenant's (a realm administrator sees its tenants' only)", schema: Problem },
};

const flag = z.enum(['true', 'false']).transform((v) => v === 'true');
const limit = (what: string) => z.int().min(1).max(1e12).describe(what);

export const MoneyBudget = z.object({
  usd: z.number().describe('US dollars per period'),
  period: z.enum(['daily', 'monthly']).describe('A UTC day or calendar month'),
  warn_at: z.number().describe('The fraction of the budget whose first crossing in a period writes a `budget.warning` event'),
});
export const BudgetSpend = z.object({
  spent_usd: z.number().describe('Spent in the current period'),
  reserved_usd: z.number().describe('Held by calls running now (their most possible cost)'),
  period_start: z.string(),
  period_end: z.string().describe('When the period ends (a refusal past the budget says so in Retry-After)'),
});
const BudgetInput = z
  .object({
    usd: z.number().positive().max(1e9).describe('US dollars per period'),
    period: z.enum(['daily', 'monthly']).optional().describe('Default monthly'),
    warn_at: z.number().positive().max(1).optional().describe('Default 0.8'),
  })
  .strict();
export { BudgetInput as MoneyBudgetInput };

export const AdminModelKey = z.object({
  id: z.string(),
  prefix: z.string().describe("The key's first characters, to tell keys apart (never the key)"),
  name: z.string(),
  tenant_id: z.string(),
  models: z.array(z.string()).nullable().describe('The models it may use; null: every model'),
  requests_per_minute: z.int().nullable(),
  token_budget: z.int().nullable().describe('Tokens in and out per calendar month (UTC)'),
  budget: MoneyBudget.nullable().describe('Its money budget (docs/spend.md); null: none'),
  spend: BudgetSpend.nullable().optional().describe('Keys with a money budget: what they spent in its current period'),
  expires_at: z.string().nullable().describe('ISO 8601; from then on refused as a revoked key is'),
  created_at: z.string(),
  revoked_at: z.string().nullable(),
});
export const AdminNewModelKey = AdminModelKey.extend({ api_key: z.string().describe('The key: in this answer only, never again') });

const KeyPath = z.object({ id: z.string().min(1).max(100).describe("The key's id (or its listing prefix)") });

const KeyListQuery = ListQuery.extend({
  tenant: z.string().max(128).optional().describe("Only this tenant's keys"),
  revoked: flag.optional().describe('true: only revoked keys; false: only keys not revoked'),
  q: z.string().max(200).optional().describe('A substring of the name, in any case'),
}).describe('sort: `created_at` (default), `name`, `tenant_id`, `expires_at`, `revoked_at`; `-` for descending');

const KeyCreate = z
  .object({
    name: z.string().min(1).max(200),
    tenant_id: z.string().min(1).max(128).optional().describe("Default: the administrator's token's tenant, else its realm's"),
    models: z.array(z.string().min(1).max(200)).max(200).optional().describe('Catalog model ids; absent: every model'),
    requests_per_minute: limit('Requests admitted in any 60 s').optional(),
    token_budget: limit('Tokens in and out per calendar month (UTC)').optional(),
    budget: BudgetInput.optional().describe('A money budget: calls past it are refused with 429 insufficient_quota'),
    expires_at: z.iso.datetime({ offset: true }).optional().describe('ISO 8601, in the future'),
  })
  .strict();

const KeyUpdate = z
  .object({
    budget: BudgetInput.nullable().describe('The new money budget; null removes it'),
  })
  .strict();

export const keyRoutes = (api: ModelsAdminApi) => [
  defineAdmin({
    method: 'get',
    path: '/keys',
    summary: 'List model keys',
    description: "Never a key, only its prefix. A realm administrator sees its tenants' keys only.",
    tags,
    input: { query: KeyListQuery },
    responses: { 200: { description: 'A page of keys', schema: PageOf(AdminModelKey) }, ...refused },
    handle: (q, { ctx }) => api.keys.list({ ...pageAsk(q), tenant: q.tenant, revoked: q.revoked, q: q.q }, ctx),
  }),
  defineAdmin({
    method: 'post',
    path: '/keys',
    summary: 'Create a model key',
    description:
      'The key is in this answer only (`api_key`); it is kept as a hash. Models must be in the catalog. ' +
      'A realm administrator creates keys for its own tenants only.',
    tags,
    input: { body: KeyCreate },
    responses: {
      201: { description: 'The key, with its text once', schema: AdminNewModelKey },
      400: { description: 'A model not in the catalog, an expiry in the past', schema: Problem },
      ...refused,
    },
    handle: async ({ body }, { ctx, res }) => created(res, await api.keys.create(body, ctx)),
  }),
  defineAdmin({
    method: 'get',
    path: '/keys/:id',
    summary: 'Read a model key',
    tags,
    input: { path: KeyPath },
    responses: { 200: { description: 'The key (never its text)', schema: AdminModelKey }, ...refused },
    handle: (p, { ctx }) => api.keys.get(p, ctx),
  }),
  defineAdmin({
    method: 'patch',
    path: '/keys/:id',
    summary: "Change a model key's money budget",
    description:
      'Sets (`{"budget": {...}}`) or removes (`{"budget": null}`) the money budget; nothing else of the key changes. ' +
      'The next call of the key is held by the new budget at once, against what it already spent in the period.',
    tags,
    input: { path: KeyPath, body: KeyUpdate },
    responses: {
      200: { description: 'The key as changed, with its spend', schema: AdminModelKey },
      409: { description: 'The key is revoked', schema: Problem },
      ...refused,
    },
    handle: ({ id, body }, { ctx }) => api.keys.update({ id, budget: body.budget }, ctx),
  }),
  defineAdmin({
    method: 'delete',
    path: '/keys/:id',
    summary: 'Revoke a model key',
    description: 'Calls with it are refused at once (401). Revoking a revoked key keeps its first time.',
    tags,
    input: { path: KeyPath },
    responses: { 200: { description: 'The key as revoked', schema: AdminModelKey }, ...refused },
    handle: (p, { ctx }) => api.keys.revoke(p, ctx),
  }),
  defineAdmin({
    method: 'post',
    path: '/keys/:id/rotate',
    summary: 'Rotate a model key',
    description:
      'A new key with the same name, tenant, models, limits and expiry, its text in this answer only; the old key is revoked in the same step. ' +
      'A revoked or expired key is not rotated (409).',
    tags,
    input: { path: KeyPath },
    responses: {
      201: { description: 'The new key, with its text once', schema: AdminNewModelKey },
      409: { description: 'The key is revoked (perhaps by another rotation just now) or has expired', schema: Problem },
      ...refused,
    },
    handle: async (p, { ctx, res }) => created(res, await api.keys.rotate(p, ctx)),
  }),
];
