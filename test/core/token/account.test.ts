import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { auditTrail } from '../../../core/shared/admin/audit';
import { memoryAuditStore } from '../../../core/shared/admin/memory-audit';
import type { Caller } from '../../../core/shared/auth/caller';
import { openTokenCore, type TokenCore } from '../../../core/token';
import { sqliteTokenStores } from '../../../core/token/sqlite';
import { callerOf, signInBrowser } from '../../shared/browser-sign-in';
import { fastHasher, pooledKeys, PUBLIC_URL, testClock } from '../../shared/helpers';

const ANN = { username: 'ann', password: 'ann-password-1' };
const BOB = { username: 'bob', password: 'bob-password-1' };

/** A person's own single sign-on sessions (core/token/account.ts), over the core alone; REST and the graph in test/e2e/token/account-sessions.test.ts. */
describe('a person’s own sessions (core)', () => {
  let core: TokenCore;
  let audit: ReturnType<typeof memoryAuditStore>;
  let clock: ReturnType<typeof testClock>;
  let realm: string;
  let caller: (token: string) => Promise<Caller>;
  let revoked: number;
  const as = async (token: string) => ({ caller: await caller(token), clientAddress: '192.0.2.7' });
  const active = async (token: string) => (await core.service.introspect({ realm, token })).active;

  beforeEach(async () => {
    clock = testClock();
    audit = memoryAuditStore();
    revoked = 0;
    core = await openTokenCore({
      stores: sqliteTokenStores(':memory:'),
      publicUrl: PUBLIC_URL,
      clock,
      hasher: fastHasher,
      generateKey: pooledKeys,
      audience: ['account', 'search'],
      revoked: async () => void revoked++,
      audit: auditTrail({ store: audit, log: pino({ level: 'silent' }), clock, newId: randomUUID }),
    });
    realm = (await core.admin.createRealm({ name: 'main' })).id;
    await core.admin.createUser({ realm, ...ANN, tenantId: 'tenant-a' });
    await core.admin.createUser({ realm, ...BOB });
    caller = callerOf(core, clock);
  });
  afterEach(() => core.close());

  it("lists only the person's own open sessions, newest first, marking the one the token came from; a page at a time", async () => {
    const first = await signInBrowser(core.service, realm, ANN);
    clock.advance(1000);
    const second = await signInBrowser(core.service, realm, ANN);
    await signInBrowser(core.service, realm, BOB);

    const mine = await core.service.accountSessions({}, await as(second.access_token));
    expect(mine.total).toBe(2);
    expect(mine.next_cursor).toBeNull();
    expect(mine.items.map((s) => [s.username, s.current])).toEqual([
      ['ann', true],
      ['ann', false],
    ]);
    expect(mine.items[0]).toEqual({
      id: expect.any(String),
      realm,
      username: 'ann',
      auth_time: new Date(clock.now()).toISOString(),
      created_at: new Date(clock.now()).toISOString(),
      expires_at: expect.any(String),
      current: true,
    });
    expect(mine.items[1].created_at < mine.items[0].created_at).toBe(true);
    // From the other browser's token, the other one is current.
    const fromFirst = await core.service.accountSessions({}, await as(first.access_token));
    expect(fromFirst.items.map((s) => s.current)).toEqual([false, true]);

    const one = await core.service.accountSessions({ limit: 1 }, await as(second.access_token));
    expect(one.items.map((s) => s.id)).toEqual([mine.items[0].id]);
    const next = await core.service.accountSessions({ limit: 1, cursor: one.next_cursor! }, await as(second.access_token));
    expect(next).toEqual({ items: [mine.items[1]], next_cursor: null, total: 2 });
  });

  it('a token of the password grant (no browser) lists the browser sessions, none of them current', async () => {
    await signInBrowser(core.service, realm, ANN);
    const password = await core.service.loginUser({ realm, ...ANN });
    const mine = await core.service.accountSessions({}, await as(password.access_token));
    expect(mine.items.map((s) => s.current)).toEqual([false]);
  });

  it("ends one of the person's sessions and its tokens at once; another's, an ended one or an unknown id are the same 404", async () => {
    const here = await signInBrowser(core.service, realm, ANN);
    const there = await signInBrowser(core.service, realm, ANN);
    const bobs = await signInBrowser(core.service, realm, BOB);
    const ctx = await as(here.access_token);
    const bobSession = (await core.service.accountSessions({}, await as(bobs.access_token))).items[0].id;
    const otherId = (await core.service.accountSessions({}, ctx)).items.find((s) => !s.current)!.id;

    const before = revoked;
    expect(await core.service.endAccountSession({ id: otherId }, ctx)).toEqual({ realm, id: otherId, sessions_ended: 1 });
    expect(revoked).toBeGreaterThan(before);
    expect(await active(there.access_token)).toBe('false');
    expect(await active(here.access_token)).toBe('true');
    expect((await core.service.accountSessions({}, ctx)).items.map((s) => s.current)).toEqual([true]);

    const refusals = await Promise.all(
      [bobSession, otherId, 'no-such-session'].map((id) => core.service.endAccountSession({ id }, ctx).catch((e: Error) => e)),
    );
    expect(refusals.map((e) => [(e as Error).constructor.name, (e as Error).message])).toEqual([
      ['NotFound', `no open session '${bobSession}' of yours`],
      ['NotFound', `no open session '${otherId}' of yours`],
      ['NotFound', "no open session 'no-such-session' of yours"],
    ]);
    // Bob's session is untouched.
    expect(await active(bobs.access_token)).toBe('true');

    const ends = audit.events.filter((e) => e.type === 'session.end');
    expect(ends.map((e) => e.outcome)).toEqual(['success', 'failure', 'failure', 'failure']);
    expect(ends[0]).toMatchObject({
      actor: { kind: 'user', realm, name: 'ann' },
      realm,
      tenant: 'tenant-a',
      target: { kind: 'session', id: otherId },
      address: '192.0.2.7',
      service: 'token',
      details: { via: 'account', sessions_ended: 1 },
    });
    expect(ends[1]).toMatchObject({
      actor: { name: 'ann' },
      target: { id: bobSession },
      reason: `no open session '${bobSession}' of yours`,
    });
  });

  it('an expired session is not listed and cannot be ended', async () => {
    const t = await signInBrowser(core.service, realm, ANN);
    const id = (await core.service.accountSessions({}, await as(t.access_token))).items[0].id;
    // Single sign-on lasts ten hours by default.
    clock.advance(11 * 3600_000);
    const ctx = await as((await core.service.loginUser({ realm, ...ANN })).access_token);
    expect(await core.service.accountSessions({}, ctx)).toEqual({ items: [], next_cursor: null, total: 0 });
    await expect(core.service.endAccountSession({ id }, ctx)).rejects.toThrow('no open session');
  });

  it('signs the person out everywhere: every session and token of theirs ends, nobody else’s; recorded as user.logout', async () => {
    const a = await signInBrowser(core.service, realm, ANN);
    const b = await signInBrowser(core.service, realm, ANN);
    const p = await core.service.loginUser({ realm, ...ANN });
    const bobs = await signInBrowser(core.service, realm, BOB);
    const ctx = await as(a.access_token);
    expect(await core.service.endAccountSessions({}, ctx)).toEqual({ realm, username: 'ann', sessions_ended: 3 });
    for (const t of [a, b, p]) expect(await active(t.access_token)).toBe('false');
    expect(await active(bobs.access_token)).toBe('true');
    expect((await core.service.accountSessions({}, await as((await core.service.loginUser({ realm, ...ANN })).access_token))).total).toBe(
      0,
    );
    const [event] = audit.events.filter((e) => e.type === 'user.logout');
    expect(event).toMatchObject({
      outcome: 'success',
      actor: { kind: 'user', name: 'ann' },
      realm,
      tenant: 'tenant-a',
      target: { kind: 'user', id: 'ann' },
      details: { via: 'account', sessions_ended: 3 },
    });
    expect(JSON.stringify(audit.events)).not.toContain(ANN.password);
    expect(JSON.stringify(audit.events)).not.toContain(a.access_token);
  });

  it("refuses a client's own token (no person) with 403, recorded with the client as the actor; no caller is 401", async () => {
    const c = await core.admin.createClient({ realm, clientId: 'svc', roles: [] });
    const t = await core.service.issueForClient({ realm, client_id: 'svc', client_secret: c.client_secret });
    const ctx = await as(t.access_token);
    for (const call of [
      core.service.accountSessions({}, ctx),
      core.service.endAccountSession({ id: 'x' }, ctx),
      core.service.endAccountSessions({}, ctx),
    ])
      await expect(call).rejects.toMatchObject({ kind: 'forbidden', message: expect.stringContaining('client credentials') });
    expect(audit.events.filter((e) => e.outcome === 'failure').map((e) => [e.type, e.actor.kind, e.actor.name])).toEqual([
      ['session.end', 'client', 'svc'],
      ['user.logout', 'client', 'svc'],
    ]);
    const none = { caller: undefined as unknown as Caller };
    await expect(core.service.accountSessions({}, none)).rejects.toMatchObject({ kind: 'unauthenticated' });
    await expect(core.service.endAccountSessions({}, none)).rejects.toMatchObject({ kind: 'unauthenticated' });
  });

  it('a person of another realm finds nothing of this realm (their token names their own realm)', async () => {
    const other = (await core.admin.createRealm({ name: 'other' })).id;
    await core.admin.createUser({ realm: other, ...ANN });
    const here = await signInBrowser(core.service, realm, ANN);
    const there = await signInBrowser(core.service, other, ANN);
    const id = (await core.service.accountSessions({}, await as(here.access_token))).items[0].id;
    const theirs = await core.service.accountSessions({}, await as(there.access_token));
    expect(theirs.items.map((s) => [s.realm, s.current])).toEqual([[other, true]]);
    await expect(core.service.endAccountSession({ id }, await as(there.access_token))).rejects.toThrow('no open session');
    expect(await active(here.access_token)).toBe('true');
  });
});
