import { REALM_ADMIN_ROLE } from '../../../core/shared/admin/roles';
import type { TokenCore } from '../../../core/token';
import { eventually } from '../../shared/wait';
import type { Started } from '../shared/server';
import { PRICED_CALL_NANOS as COST_NANOS, startPricedPlatform } from './priced-platform';

/**
 * A key's money budget changed after its creation (docs/spend.md, `PATCH /admin/api/v1/keys/{id}`):
 * set, lowered, raised and removed over HTTP and GraphQL, each change audited; the next call of the
 * key is held by the new budget at once. A realm administrator changes its own tenants' keys only.
 */
describe('model gateway: a key budget changed after creation', () => {
  let p: Started;
  let close: () => Promise<void>;
  let admin: string;
  let realmAdmin: string;
  let plain: string;

  const login = async (realm: string, username: string, password: string) => {
    const res = await fetch(`${p.url}/auth/api/v1/oauth/connect/user/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ realm, username, password }),
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { access_token: string }).access_token;
  };

  beforeAll(async () => {
    ({ p, close } = await startPricedPlatform('E2E_SPEND_UPDATE_KEY'));
    const boot = p.bootstrap!.values;
    const token = p.instances.token as TokenCore;
    const other = (await token.admin.createRealm({ name: 'other' })).id;
    await token.admin.createUser({ realm: other, username: 'ra', password: 'realm-admin-pw', roles: [REALM_ADMIN_ROLE] });
    [admin, realmAdmin, plain] = await Promise.all([
      login(boot.realm, boot.admin_username, boot.admin_password),
      login(other, 'ra', 'realm-admin-pw'),
      login(boot.realm, boot.username, boot.password),
    ]);
  }, 60_000);
  afterAll(async () => {
    await close?.();
  });

  const api = async (method: string, path: string, body?: unknown, token = admin) => {
    const res = await fetch(`${p.url}/admin/api/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, text, body: text ? JSON.parse(text) : undefined };
  };
  const gql = async (query: string, variables: Record<string, unknown> = {}, token = admin) => {
    const res = await fetch(`${p.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query, variables }),
    });
    return (await res.json()) as { data?: Record<string, any>; errors?: unknown[] };
  };
  const chat = async (key: string) => {
    const r = await fetch(`${p.url}/proxy/api/v1/azure/openai/deployments/priced/chat/completions?api-version=2024-10-21`, {
      method: 'POST',
      // The answer cache off: a cached answer costs nothing.
      headers: { 'api-key': `${key}/{"is_cache":0}`, 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 }),
    });
    return { status: r.status, body: (await r.json()) as Record<string, any>, retryAfter: r.headers.get('retry-after') };
  };
  const nanos = (usd: number) => Math.round(usd * 1e9);
  const settled = (id: string) => eventually(async () => (await api('GET', `/keys/${id}`)).body.spend?.reserved_usd === 0);
  const events = async (type: string, target: string) =>
    ((await api('GET', `/audit-events?type=${type}&limit=200`)).body.items as any[]).filter((e) => e.target?.id === target);

  it('sets, changes and removes a budget; nothing else of the key changes; each change audited', async () => {
    const made = await api('POST', '/keys', { name: 'later', models: ['priced'], requests_per_minute: 100 });
    expect(made.status).toBe(201);
    const { api_key: text, ...before } = made.body;
    expect(before.budget).toBeNull();

    const set = await api('PATCH', `/keys/${before.id}`, { budget: { usd: 5 } });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({
      ...before,
      budget: { usd: 5, period: 'monthly', warn_at: 0.8 },
      spend: { spent_usd: 0, reserved_usd: 0, period_start: expect.any(String), period_end: expect.any(String) },
    });
    const changed = await api('PATCH', `/keys/${before.prefix}`, { budget: { usd: 2, period: 'daily', warn_at: 0.5 } });
    expect(changed.body.budget).toEqual({ usd: 2, period: 'daily', warn_at: 0.5 });
    expect((await api('GET', `/keys/${before.id}`)).body.budget).toEqual({ usd: 2, period: 'daily', warn_at: 0.5 });

    const removed = await api('PATCH', `/keys/${before.id}`, { budget: null });
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual(before);
    expect((await api('GET', `/keys/${before.id}`)).body).toEqual(before);

    const audit = await events('key.update', before.id);
    expect(audit.map((e) => [e.outcome, e.details.budget_usd, e.details.previous_budget_usd])).toEqual([
      ['success', null, 2],
      ['success', 2, 5],
      ['success', 5, null],
    ]);
    expect(JSON.stringify(audit)).not.toContain(text);
  });

  it('refuses a bad budget (422) and an unknown key (404); a revoked key is 409', async () => {
    const made = await api('POST', '/keys', { name: 'checked', budget: { usd: 1 } });
    const id = made.body.id as string;
    for (const body of [
      { budget: { usd: -1 } },
      { budget: { usd: 1, period: 'weekly' } },
      { budget: { usd: 1, warn_at: 2 } },
      {},
      { name: 'x', budget: null },
    ])
      expect((await api('PATCH', `/keys/${id}`, body)).status).toBe(422);
    expect((await api('GET', `/keys/${id}`)).body.budget).toEqual({ usd: 1, period: 'monthly', warn_at: 0.8 });
    expect((await api('PATCH', '/keys/no-such-key', { budget: null })).status).toBe(404);
    expect((await api('PATCH', `/keys/${id}`, { budget: null }, plain)).status).toBe(403);
    expect((await api('DELETE', `/keys/${id}`)).status).toBe(200);
    const revoked = await api('PATCH', `/keys/${id}`, { budget: { usd: 9 } });
    expect(revoked.status).toBe(409);
    expect((await api('GET', `/keys/${id}`)).body.budget.usd).toBe(1);
  });

  it('a lowered budget refuses the next call at once; raised or removed, calls pass again', async () => {
    const made = await api('POST', '/keys', { name: 'lowered', budget: { usd: 1, period: 'daily' } });
    const { api_key: key, id } = made.body as { api_key: string; id: string };
    for (let i = 0; i < 2; i++) {
      expect((await chat(key)).status).toBe(200);
      await settled(id);
    }
    await eventually(async () => nanos((await api('GET', `/keys/${id}`)).body.spend.spent_usd) === 2 * COST_NANOS);

    // Lowered to what was spent: no room for one more call, refused at once with the budget's refusal.
    const lowered = await api('PATCH', `/keys/${id}`, { budget: { usd: (2 * COST_NANOS) / 1e9, period: 'daily' } });
    expect(lowered.status).toBe(200);
    expect(nanos(lowered.body.spend.spent_usd)).toBe(2 * COST_NANOS);
    const refused = await chat(key);
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('insufficient_quota');
    expect(refused.body.error.message).toMatch(/^budget_exceeded:/);
    expect(Number(refused.retryAfter)).toBeGreaterThan(0);
    expect(Number(refused.retryAfter)).toBeLessThanOrEqual(86_400);

    // Raised: the spend of the period is kept, and the call fits again.
    expect((await api('PATCH', `/keys/${id}`, { budget: { usd: 1, period: 'daily' } })).status).toBe(200);
    expect((await chat(key)).status).toBe(200);
    await settled(id);
    expect(nanos((await api('GET', `/keys/${id}`)).body.spend.spent_usd)).toBe(3 * COST_NANOS);

    // Lowered again, then removed: without a budget nothing holds the key.
    await api('PATCH', `/keys/${id}`, { budget: { usd: 0.01 } });
    expect((await chat(key)).status).toBe(429);
    expect((await api('PATCH', `/keys/${id}`, { budget: null })).status).toBe(200);
    expect((await chat(key)).status).toBe(200);
  }, 60_000);

  it("keeps a realm administrator to its own tenants' keys: another realm's key is 404, audited as a failure", async () => {
    const theirs = await api('POST', '/keys', { name: 'theirs', budget: { usd: 3 } });
    const tried = await api('PATCH', `/keys/${theirs.body.id}`, { budget: null }, realmAdmin);
    expect(tried.status).toBe(404);
    expect((await api('GET', `/keys/${theirs.body.id}`)).body.budget.usd).toBe(3);
    const audit = await events('key.update', theirs.body.id);
    expect(audit).toEqual([expect.objectContaining({ outcome: 'failure' })]);

    const mine = await api('POST', '/keys', { name: 'mine' }, realmAdmin);
    expect(mine.status).toBe(201);
    const set = await api('PATCH', `/keys/${mine.body.id}`, { budget: { usd: 4, period: 'daily' } }, realmAdmin);
    expect(set.status).toBe(200);
    expect(set.body.budget).toEqual({ usd: 4, period: 'daily', warn_at: 0.8 });
  });

  it('changes a budget in the graph: set, removed, a bad one BAD_USER_INPUT, another realm NOT_FOUND', async () => {
    const made = await api('POST', '/keys', { name: 'graph' });
    const id = made.body.id as string;
    const set = await gql(
      `mutation($id: ID!) { adminSetModelKeyBudget(id: $id, budget: { usd: 6, period: "daily", warnAt: 0.7 }) { id budget { usd period warnAt } spend { spentUsd } } }`,
      { id },
    );
    expect(set.errors).toBeUndefined();
    expect(set.data!.adminSetModelKeyBudget).toEqual({ id, budget: { usd: 6, period: 'daily', warnAt: 0.7 }, spend: { spentUsd: 0 } });
    const bad = await gql(`mutation($id: ID!) { adminSetModelKeyBudget(id: $id, budget: { usd: 0 }) { id } }`, { id });
    expect(JSON.stringify(bad.errors)).toMatch(/BAD_USER_INPUT/);
    const none = await gql(`mutation($id: ID!) { adminSetModelKeyBudget(id: $id) { id } }`, { id });
    expect(JSON.stringify(none.errors)).toMatch(/BAD_USER_INPUT/);
    const other = await gql(`mutation($id: ID!) { adminSetModelKeyBudget(id: $id, budget: null) { id } }`, { id }, realmAdmin);
    expect(JSON.stringify(other.errors)).toMatch(/NOT_FOUND/);
    const removed = await gql(
      `mutation($id: ID!) { adminSetModelKeyBudget(id: $id, budget: null) { budget { usd } spend { spentUsd } } }`,
      { id },
    );
    expect(removed.data!.adminSetModelKeyBudget).toEqual({ budget: null, spend: null });
  });
});
