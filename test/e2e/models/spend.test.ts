import { eventually } from '../../shared/wait';
import type { Started } from '../shared/server';
import { PRICED_CALL_NANOS as COST_NANOS, startPricedPlatform } from './priced-platform';

/**
 * Money budgets end to end (docs/spend.md): a key with a budget in dollars, created in the admin
 * API, calling a priced model on a fake OpenAI-wire upstream that reports usage through the Azure
 * door. At the edge of the budget, 50 calls at once: the spend is exactly the successes' cost and
 * never past the budget, the rest are refused as Azure's 429 `insufficient_quota` with Retry-After.
 */
describe('model gateway: spend and budgets in money', () => {
  let p: Started;
  let close: () => Promise<void>;
  let admin: string;

  beforeAll(async () => {
    ({ p, close } = await startPricedPlatform('E2E_SPEND_KEY'));
    const boot = p.bootstrap!.values;
    const res = await fetch(`${p.url}/auth/api/v1/oauth/connect/user/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ realm: boot.realm, username: boot.admin_username, password: boot.admin_password }),
    });
    admin = ((await res.json()) as { access_token: string }).access_token;
  }, 60_000);
  afterAll(async () => {
    await close?.();
  });

  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${p.url}/admin/api/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${admin}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
  const chat = (key: string) =>
    fetch(`${p.url}/proxy/api/v1/azure/openai/deployments/priced/chat/completions?api-version=2024-10-21`, {
      method: 'POST',
      // The answer cache off: a cached answer costs nothing, and these calls are all alike.
      headers: { 'api-key': `${key}/{"is_cache":0}`, 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 }),
    });
  const nanos = (usd: number) => Math.round(usd * 1e9);

  it('takes a money budget at key creation, and checks it (422 for a bad one)', async () => {
    const bad = await api('POST', '/keys', { name: 'bad', budget: { usd: -1 } });
    expect(bad.status).toBe(422);
    const badPeriod = await api('POST', '/keys', { name: 'bad', budget: { usd: 1, period: 'weekly' } });
    expect(badPeriod.status).toBe(422);
    const ok = await api('POST', '/keys', { name: 'budgeted', budget: { usd: 2.5 } });
    expect(ok.status).toBe(201);
    expect(ok.body.budget).toEqual({ usd: 2.5, period: 'monthly', warn_at: 0.8 });
    const read = await api('GET', `/keys/${ok.body.id}`);
    expect(read.body.spend).toMatchObject({ spent_usd: 0, reserved_usd: 0 });
  });

  it('spends exactly the budget at its edge: 50 calls at once, the successes cost the spend, the rest 429 insufficient_quota', async () => {
    // Room for 25 calls' real cost; each reserves its most (18 prompt tokens bounded, 5 of output) until it settles.
    const created = await api('POST', '/keys', { name: 'edge', budget: { usd: 0.35, period: 'daily', warn_at: 0.5 } });
    expect(created.status).toBe(201);
    const key = created.body.api_key as string;
    const id = created.body.id as string;
    const answers = await Promise.all(Array.from({ length: 50 }, () => chat(key)));
    const bodies = await Promise.all(answers.map((r) => r.json() as Promise<Record<string, any>>));
    const ok = answers.filter((r) => r.status === 200).length;
    const refused = answers.map((r, i) => ({ r, b: bodies[i] })).filter(({ r }) => r.status !== 200);
    expect(ok).toBeGreaterThan(0);
    for (const { r, b } of refused) {
      expect(r.status).toBe(429);
      expect(b.error.code).toBe('insufficient_quota');
      expect(b.error.message).toMatch(/budget_exceeded/);
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(Number(r.headers.get('retry-after'))).toBeLessThanOrEqual(86_400);
    }
    // Settles run as each answer ends: the counter reads the successes' cost exactly, nothing reserved, never past the budget.
    let spend: { spent_usd: number; reserved_usd: number } | undefined;
    await eventually(async () => {
      spend = (await api('GET', `/keys/${id}`)).body.spend;
      return spend!.reserved_usd === 0 && nanos(spend!.spent_usd) === ok * COST_NANOS;
    });
    expect(nanos(spend!.spent_usd)).toBe(ok * COST_NANOS);
    expect(nanos(spend!.spent_usd)).toBeLessThanOrEqual(nanos(0.35));
    // Usage per day carries the same cost, summed in SQL.
    await eventually(async () => {
      const rows = (await api('GET', `/usage?key=${id}`)).body.items as { cost: number; requests: number }[];
      return rows.length === 1 && rows[0].requests === 50 && nanos(rows[0].cost) === ok * COST_NANOS;
    });
    // Sequential calls then fill the budget to its last call's worth.
    let more = 0;
    for (;;) {
      const r = await chat(key);
      await r.text();
      if (r.status !== 200) break;
      more++;
      await eventually(async () => (await api('GET', `/keys/${id}`)).body.spend.reserved_usd === 0);
    }
    await eventually(async () => nanos((await api('GET', `/keys/${id}`)).body.spend.spent_usd) === (ok + more) * COST_NANOS);
    // What remains is less than one call's most possible cost.
    expect(nanos(0.35) - (ok + more) * COST_NANOS).toBeLessThan(28_000_000);
  }, 60_000);

  it("holds a tenant's budget over every key of it; a budget warning is audited once", async () => {
    const created = await api('POST', '/keys', { name: 'tenant-held', tenant_id: 'budget-tenant' });
    expect(created.status).toBe(201);
    const set = await api('PUT', '/tenant-budgets/budget-tenant', { usd: 0.06, period: 'monthly', warn_at: 0.5 });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ tenant_id: 'budget-tenant', usd: 0.06, period: 'monthly', warn_at: 0.5 });
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const r = await chat(created.body.api_key);
      await r.text();
      statuses.push(r.status);
      await eventually(async () => (await api('GET', '/tenant-budgets/budget-tenant')).body.spend.reserved_usd === 0);
    }
    // $0.06 holds three calls of $0.014, and the fourth's most possible cost ($0.028) does not fit what is left.
    expect(statuses).toEqual([200, 200, 200, 429, 429, 429]);
    const read = await api('GET', '/tenant-budgets/budget-tenant');
    expect(nanos(read.body.spend.spent_usd)).toBe(3 * COST_NANOS);
    await eventually(async () => {
      const events = (await api('GET', '/audit-events?type=budget.warning')).body;
      return (events.items as { tenant?: string }[]).filter((e: { tenant?: string }) => e.tenant === 'budget-tenant').length === 1;
    });
    expect((await api('DELETE', '/tenant-budgets/budget-tenant')).status).toBe(200);
    expect((await api('GET', '/tenant-budgets/budget-tenant')).status).toBe(404);
  }, 60_000);

  it('shows budgets and spend in the graph: a key made with a budget, a tenant budget set, read and removed', async () => {
    const gql = async (query: string, variables: Record<string, unknown> = {}) => {
      const res = await fetch(`${p.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${admin}` },
        body: JSON.stringify({ query, variables }),
      });
      return (await res.json()) as { data?: Record<string, any>; errors?: unknown[] };
    };
    const made = await gql(
      `mutation { adminCreateModelKey(input: { name: "graph", budget: { usd: 3, period: "daily", warnAt: 0.9 } }) { id budget { usd period warnAt } } }`,
    );
    expect(made.errors).toBeUndefined();
    expect(made.data!.adminCreateModelKey.budget).toEqual({ usd: 3, period: 'daily', warnAt: 0.9 });
    const read = await gql(`query($id: ID!) { adminModelKey(id: $id) { spend { spentUsd reservedUsd periodEnd } } }`, {
      id: made.data!.adminCreateModelKey.id,
    });
    expect(read.data!.adminModelKey.spend).toMatchObject({ spentUsd: 0, reservedUsd: 0 });
    const set = await gql(
      `mutation { adminSetTenantBudget(tenant: "graph-tenant", budget: { usd: 7 }) { tenantId usd period warnAt spend { spentUsd } } }`,
    );
    expect(set.data!.adminSetTenantBudget).toEqual({
      tenantId: 'graph-tenant',
      usd: 7,
      period: 'monthly',
      warnAt: 0.8,
      spend: { spentUsd: 0 },
    });
    const bad = await gql(`mutation { adminSetTenantBudget(tenant: "graph-tenant", budget: { usd: -7 }) { tenantId } }`);
    expect(JSON.stringify(bad.errors)).toMatch(/BAD_USER_INPUT/);
    const list = await gql(`{ adminTenantBudgets { tenantId usd } }`);
    expect(list.data!.adminTenantBudgets).toContainEqual({ tenantId: 'graph-tenant', usd: 7 });
    expect((await gql(`mutation { adminDeleteTenantBudget(tenant: "graph-tenant") }`)).data!.adminDeleteTenantBudget).toBe(true);
    expect(JSON.stringify((await gql(`{ adminTenantBudget(tenant: "graph-tenant") { usd } }`)).errors)).toMatch(/NOT_FOUND/);
  });
});
