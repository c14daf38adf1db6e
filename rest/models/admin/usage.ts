import { z } from 'zod';
import type { ModelsAdminApi } from '../../../core/models/admin-api';
import { MAX_DAYS } from '../../../core/models/admin-api/usage';
import { defineAdmin, ListQuery, pageAsk, PageOf } from '../../admin/common';
import { refused } from './keys';

const day = (what: string) =>
  z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/)
    .describe(`${what}: a day, YYYY-MM-DD (UTC), inclusive`);

export const AdminUsageRow = z.object({
  day: z.string().describe('YYYY-MM-DD (UTC)'),
  tenant_id: z.string(),
  key_id: z.string().describe("The key's id (`service:<name>` for a service of the platform calling without a key)"),
  model: z.string(),
  requests: z.int(),
  input_tokens: z.int(),
  output_tokens: z.int(),
  words_sent: z.int(),
  words_received: z.int(),
  cache_hits: z.int(),
  errors: z.int().describe('Calls answered with a status of 400 or more'),
  cost: z.number().describe("US dollars, at the catalog's prices"),
});

const UsageQuery = ListQuery.extend({
  tenant: z.string().max(128).optional(),
  key: z.string().max(100).optional().describe("A key's id"),
  model: z.string().max(200).optional(),
  from: day('From').optional(),
  to: day('To (today by default)').optional(),
}).describe(`sort: \`day\` (default) or \`-day\`. The last 30 days by default, at most ${MAX_DAYS} at once.`);

/** Usage per day, tenant, key and model; a realm administrator's tenants only. */
export const usageRoutes = (api: ModelsAdminApi) => [
  defineAdmin({
    method: 'get',
    path: '/usage',
    summary: 'Usage per day, tenant, key and model',
    description: "Every call the gateway metered, summed per UTC day. A realm administrator sees its tenants' only.",
    tags: ['usage'],
    input: { query: UsageQuery },
    responses: {
      200: { description: 'A page of rows', schema: PageOf(AdminUsageRow) },
      400: { description: 'A day that does not exist, `from` after `to`, too long a range', schema: z.object({ detail: z.string() }) },
      ...refused,
    },
    handle: (q, { ctx }) => api.usage.list({ ...pageAsk(q), tenant: q.tenant, key: q.key, model: q.model, from: q.from, to: q.to }, ctx),
  }),
];
