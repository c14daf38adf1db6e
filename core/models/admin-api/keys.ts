import { checkTenant, tenantsOf, type Admin } from '../../shared/admin/access';
import { audited, changeBy, type AuditTrail } from '../../shared/admin/audit';
import { pageOf, type PageAsk } from '../../shared/admin/paging';
import type { Clock } from '../../shared/clock';
import type { Ctx } from '../../shared/context';
import { BadRequest, Conflict, NotFound } from '../../shared/errors';
import { expiredAt, type ApiKey, type ApiKeys } from '../keys/keys';
import { pageView, type PageView } from './page';
import { budgetOf, budgetView, type BudgetInput, type BudgetView } from '../spend/budget-input';

/**
 * Model keys in the admin API (docs/admin.md): create (the key shown once), list and read (never the
 * key, only its prefix), change its money budget, revoke, rotate. A platform administrator manages every tenant's keys; a
 * realm administrator only its tenants' (tenantsOf): another tenant's key answers 404, as if it did
 * not exist. Every change is audited (`key.create`, `key.update`, `key.revoke`, `key.rotate`), never with the key.
 */
export const SERVICE = 'models';

/** A key as every admin face shows it (REST body, GraphQL in camelCase, the CLI's output). */
export interface KeyView {
  id: string;
  prefix: string;
  name: string;
  tenant_id: string;
  models: string[] | null;
  requests_per_minute: number | null;
  token_budget: number | null;
  /** Its money budget (docs/spend.md); null: none. */
  budget: BudgetView | null;
  /** What it spent in the budget's current period (keys with a budget; null when the counters cannot be read). */
  spend?: SpendView | null;
  expires_at: string | null;
  created_at: string;
  revoked_at: string | null;
}

/** A budget's spend in its current period, in US dollars. */
export interface SpendView {
  spent_usd: number;
  /** Held by calls running now (their most possible cost). */
  reserved_usd: number;
  period_start: string;
  period_end: string;
}

export const keyView = (k: ApiKey): KeyView => ({
  id: k.id,
  prefix: k.prefix,
  name: k.name,
  tenant_id: k.tenant,
  models: k.models,
  requests_per_minute: k.requestsPerMinute,
  token_budget: k.tokenBudget,
  budget: k.budget ? budgetView(k.budget) : null,
  expires_at: k.expiresAt?.toISOString() ?? null,
  created_at: k.createdAt.toISOString(),
  revoked_at: k.revokedAt?.toISOString() ?? null,
});

/** A new key's view with its text: the only answer that ever holds it. */
export type NewKeyView = { api_key: string } & KeyView;

export interface KeyListInput extends PageAsk {
  tenant?: string;
  /** true: only revoked keys; false: only those not revoked. */
  revoked?: boolean;
  /** A substring of the key's name. */
  q?: string;
}

export interface KeyCreateInput {
  name: string;
  /** Default: the administrator's token's tenant, else its realm's (a realm's default tenant is its id). */
  tenant_id?: string;
  /** Catalog model ids the key may use; absent: every model. */
  models?: string[];
  requests_per_minute?: number;
  token_budget?: number;
  /** A money budget: US dollars per day or month, and the fraction warned of. */
  budget?: BudgetInput;
  /** ISO 8601, in the future. */
  expires_at?: string;
}

/** What `PATCH /keys/{id}` changes: the money budget only (null removes it). */
export interface KeyUpdateInput {
  id: string;
  budget?: BudgetInput | null;
}

export interface KeysAdminDeps {
  keys: ApiKeys;
  audit: AuditTrail;
  clock: Clock;
  /** Those of `ids` the catalog does not have (a key may be limited to catalog models only). */
  notInCatalog(this: void, ids: readonly string[]): Promise<string[]>;
  /** What a key with a money budget spent in its current period. */
  spentOf?(this: void, k: ApiKey): Promise<SpendView | null>;
}

const MAX_NAME = 200;
const MAX_LIMIT = 1e12;
/** A key's listing prefix (`lmk-` and six characters), which `platform key revoke` takes as well as the id. */
const PREFIX = /^lmk-[A-Za-z0-9_-]{6}$/;

const positive = (v: number | undefined, name: string) => {
  if (v !== undefined && (!Number.isSafeInteger(v) || v < 1 || v > MAX_LIMIT))
    throw new BadRequest(`${name}: a whole number from 1 to ${MAX_LIMIT}`);
  return v;
};

export function keysAdmin(d: KeysAdminDeps) {
  const { keys, audit, clock } = d;

  /** The keys an administrator may see: a realm administrator's tenants', or `tenant`'s among them. */
  const visibleKeys = async (admin: Admin, tenant?: string): Promise<ApiKey[]> => {
    const mine = tenantsOf(admin);
    if (!mine) return keys.list(tenant);
    const tenants = tenant === undefined ? mine : mine.filter((t) => t === tenant);
    return (await Promise.all(tenants.map((t) => keys.list(t)))).flat();
  };

  /** The key an id (or listing prefix) names, when the administrator may see it. */
  const visibleKey = async (admin: Admin, ref: string): Promise<ApiKey | undefined> => {
    let k = await keys.get(ref);
    // As the store revokes by prefix: the oldest key with it (prefixes are 36 random bits).
    if (!k && PREFIX.test(ref)) k = (await visibleKeys(admin)).find((x) => x.prefix === ref);
    return k && (admin.platform || tenantsOf(admin)!.includes(k.tenant)) ? k : undefined;
  };

  /** Where a change's event belongs: a realm administrator's own realm; a platform administrator's, the tenant's (a realm's default tenant is its id). */
  const at = (admin: Admin, k: Pick<ApiKey, 'id' | 'tenant'>) => ({
    realm: admin.platform ? k.tenant : admin.realm,
    tenant: k.tenant,
    target: { kind: 'key', id: k.id },
  });

  /** The key a change names, or 404, audited as a failed change (someone tried to change a key it may not see). */
  const keyFor = async (ctx: Ctx<Admin>, type: string, ref: string): Promise<ApiKey> => {
    const k = await visibleKey(ctx.caller, ref);
    if (k) return k;
    return audited(audit, changeBy(ctx.caller, ctx, SERVICE, type, { target: { kind: 'key', id: ref.slice(0, 100) } }), async () => {
      throw new NotFound(`No key ${JSON.stringify(ref)}`);
    });
  };

  return {
    async list(q: KeyListInput, ctx: Ctx<Admin>): Promise<PageView<KeyView>> {
      const needle = q.q?.toLowerCase();
      const found = (await visibleKeys(ctx.caller, q.tenant)).filter(
        (k) =>
          (q.revoked === undefined || (k.revokedAt !== null) === q.revoked) &&
          (needle === undefined || k.name.toLowerCase().includes(needle)),
      );
      const withSpend = async (k: ApiKey): Promise<KeyView> => ({
        ...keyView(k),
        ...(k.budget && d.spentOf && { spend: await d.spentOf(k) }),
      });
      const page = pageOf(found, q, {
        keyOf: (k) => k.id,
        sorts: {
          created_at: (k) => k.createdAt.getTime(),
          name: (k) => k.name,
          tenant_id: (k) => k.tenant,
          expires_at: (k) => k.expiresAt?.getTime() ?? null,
          revoked_at: (k) => k.revokedAt?.getTime() ?? null,
        },
      });
      const view = pageView(page, keyView);
      return { ...view, items: await Promise.all(page.items.map(withSpend)) };
    },

    async get({ id }: { id: string }, ctx: Ctx<Admin>): Promise<KeyView> {
      const k = await visibleKey(ctx.caller, id);
      if (!k) throw new NotFound(`No key ${JSON.stringify(id)}`);
      return { ...keyView(k), ...(k.budget && d.spentOf && { spend: await d.spentOf(k) }) };
    },

    async create(input: KeyCreateInput, ctx: Ctx<Admin>): Promise<NewKeyView> {
      const admin = ctx.caller;
      const tenant = input.tenant_id ?? admin.tenant ?? (admin.realm || undefined);
      if (!tenant) throw new BadRequest('tenant_id: required (the key is for one tenant)');
      const name = input.name.trim();
      if (!name || name.length > MAX_NAME) throw new BadRequest(`name: 1 to ${MAX_NAME} characters`);
      const event = changeBy(admin, ctx, SERVICE, 'key.create', { realm: admin.platform ? tenant : admin.realm, tenant });
      return audited(
        audit,
        event,
        async () => {
          checkTenant(admin, tenant);
          const models = input.models && [...new Set(input.models)];
          const unknown = models && (await d.notInCatalog(models));
          if (unknown?.length) throw new BadRequest(`models: not in the catalog: ${unknown.join(', ')}`);
          let expiresAt: Date | undefined;
          if (input.expires_at !== undefined) {
            expiresAt = new Date(input.expires_at);
            if (!Number.isFinite(expiresAt.getTime())) throw new BadRequest('expires_at: an ISO 8601 time');
            if (expiredAt({ expiresAt }, clock.now())) throw new BadRequest('expires_at: a time in the future');
          }
          const k = await keys.create({
            name,
            tenant,
            models,
            requestsPerMinute: positive(input.requests_per_minute, 'requests_per_minute'),
            tokenBudget: positive(input.token_budget, 'token_budget'),
            budget: input.budget && budgetOf(input.budget),
            expiresAt,
          });
          // Its id is known now: the event (recorded after this returns) names it as its target.
          event.target = { kind: 'key', id: k.id };
          const { apiKey, ...kept } = k;
          return { api_key: apiKey, ...keyView(kept) };
        },
        (v) => ({
          name: v.name,
          prefix: v.prefix,
          models: v.models,
          requests_per_minute: v.requests_per_minute,
          // `token` names are dropped from details as secrets; a budget is not one.
          budget: v.token_budget,
          budget_usd: v.budget?.usd ?? null,
          budget_period: v.budget?.period ?? null,
          expires_at: v.expires_at,
        }),
      );
    },

    async revoke({ id }: { id: string }, ctx: Ctx<Admin>): Promise<KeyView> {
      const k = await keyFor(ctx, 'key.revoke', id);
      return audited(
        audit,
        changeBy(ctx.caller, ctx, SERVICE, 'key.revoke', at(ctx.caller, k)),
        async () => keyView(await keys.revoke(k.id)),
        (v) => ({ name: v.name, prefix: v.prefix, revoked_at: v.revoked_at }),
      );
    },

    /**
     * Sets or removes a key's money budget. The next call of the key reserves under the new budget
     * whichever replica serves it (the key is read per call), so a budget lowered under what was
     * spent refuses at once; the spend already counted in the period stays. A revoked key is 409.
     */
    async update({ id, budget }: KeyUpdateInput, ctx: Ctx<Admin>): Promise<KeyView> {
      const k = await keyFor(ctx, 'key.update', id);
      return audited(
        audit,
        changeBy(ctx.caller, ctx, SERVICE, 'key.update', at(ctx.caller, k)),
        async () => {
          if (budget === undefined) throw new BadRequest('budget: required (an object, or null to remove it)');
          const next = budget === null ? null : budgetOf(budget);
          if (k.revokedAt) throw new Conflict(`The key ${JSON.stringify(id)} is revoked: its settings no longer change`);
          const changed = await keys.setBudget(k.id, next);
          return { ...keyView(changed), ...(changed.budget && d.spentOf && { spend: await d.spentOf(changed) }) };
        },
        (v) => ({
          name: v.name,
          prefix: v.prefix,
          budget_usd: v.budget?.usd ?? null,
          budget_period: v.budget?.period ?? null,
          budget_warn_at: v.budget?.warn_at ?? null,
          previous_budget_usd: k.budget?.usd ?? null,
        }),
      );
    },

    async rotate({ id }: { id: string }, ctx: Ctx<Admin>): Promise<NewKeyView> {
      const k = await keyFor(ctx, 'key.rotate', id);
      return audited(
        audit,
        changeBy(ctx.caller, ctx, SERVICE, 'key.rotate', at(ctx.caller, k)),
        async () => {
          const { key } = await keys.rotate(k.id);
          const { apiKey, ...kept } = key;
          return { api_key: apiKey, ...keyView(kept) };
        },
        (v) => ({ name: v.name, prefix: k.prefix, new_id: v.id, new_prefix: v.prefix }),
      );
    },
  };
}

export type KeysAdmin = ReturnType<typeof keysAdmin>;
