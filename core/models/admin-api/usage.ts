import { tenantsOf, type Admin } from '../../shared/admin/access';
import { DEFAULT_PAGE, MAX_PAGE, type PageAsk } from '../../shared/admin/paging';
import type { Clock } from '../../shared/clock';
import type { Ctx } from '../../shared/context';
import { BadRequest } from '../../shared/errors';
import type { UsageStore } from '../ports';
import { DAY_MS, type DailyUsage, type DailyUsageKey } from '../usage/daily';
import type { PageView } from './page';

/**
 * Usage in the admin API (docs/admin.md): calls summed per UTC day, tenant, key and model, from the
 * usage records, grouped and paged by the store. A realm administrator sees its tenants' rows only.
 * Days are inclusive at both ends; the last 30 days by default, at most `MAX_DAYS` at once.
 */
export interface UsageRow {
  day: string;
  tenant_id: string;
  key_id: string;
  model: string;
  requests: number;
  input_tokens: number;
  output_tokens: number;
  words_sent: number;
  words_received: number;
  cache_hits: number;
  errors: number;
  cost: number;
}

export const usageRow = (r: DailyUsage): UsageRow => ({
  day: r.day,
  tenant_id: r.tenant,
  key_id: r.keyId,
  model: r.model,
  requests: r.requests,
  input_tokens: r.tokens_in,
  output_tokens: r.tokens_out,
  words_sent: r.words_sent,
  words_received: r.words_received,
  cache_hits: r.cache_hits,
  errors: r.errors,
  cost: r.cost,
});

export interface UsageInput extends PageAsk {
  tenant?: string;
  /** A key's id. */
  key?: string;
  model?: string;
  /** YYYY-MM-DD (UTC), inclusive. */
  from?: string;
  /** YYYY-MM-DD (UTC), inclusive; today by default. */
  to?: string;
}

export const MAX_DAYS = 366;
const DEFAULT_DAYS = 30;
const SORTS = ['day', '-day'];

const dayStart = (v: string, name: string): number => {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v);
  const ms = m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) : NaN;
  if (!m || new Date(ms).toISOString().slice(0, 10) !== v) throw new BadRequest(`${name}: a day, YYYY-MM-DD`);
  return ms;
};

const encode = (k: DailyUsageKey) => Buffer.from(JSON.stringify([k.day, k.tenant, k.keyId, k.model])).toString('base64url');
function decode(cursor: string): DailyUsageKey {
  try {
    const v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(v) && v.length === 4 && v.every((x) => typeof x === 'string')) {
      const [day, tenant, keyId, model] = v;
      return { day, tenant, keyId, model };
    }
  } catch {
    // answered below
  }
  throw new BadRequest('cursor: not one this list gave');
}

export function usageAdmin(d: { usage: UsageStore; clock: Clock }) {
  return {
    async list(q: UsageInput, ctx: Ctx<Admin>): Promise<PageView<UsageRow>> {
      const limit = q.limit ?? DEFAULT_PAGE;
      if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE) throw new BadRequest(`limit: a whole number from 1 to ${MAX_PAGE}`);
      const sort = q.sort ?? 'day';
      if (!SORTS.includes(sort)) throw new BadRequest(`sort: one of ${SORTS.join(', ')}`);
      const today = Math.floor(d.clock.now() / DAY_MS) * DAY_MS;
      const to = q.to === undefined ? today : dayStart(q.to, 'to');
      const from = q.from === undefined ? to - (DEFAULT_DAYS - 1) * DAY_MS : dayStart(q.from, 'from');
      if (from > to) throw new BadRequest('from: a day before or on `to`');
      if ((to - from) / DAY_MS + 1 > MAX_DAYS) throw new BadRequest(`from, to: at most ${MAX_DAYS} days at once`);
      const mine = tenantsOf(ctx.caller);
      // Another tenant's rows are not a realm administrator's to read: none, as if there were none.
      const tenants = !mine
        ? q.tenant === undefined
          ? undefined
          : [q.tenant]
        : mine.filter((t) => q.tenant === undefined || t === q.tenant);
      if (tenants?.length === 0) return { items: [], next_cursor: null, total: 0 };
      const { rows, total } = await d.usage.daily({
        tenants,
        keyId: q.key,
        model: q.model,
        from,
        to: to + DAY_MS,
        desc: sort === '-day',
        after: q.cursor === undefined ? undefined : decode(q.cursor),
        // One more than the page: whether another follows.
        limit: limit + 1,
      });
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      return { items: page.map(usageRow), next_cursor: rows.length > limit && last ? encode(last) : null, total };
    },
  };
}

export type UsageAdmin = ReturnType<typeof usageAdmin>;
