import pino from 'pino';
import { auditTrail } from '../../../core/shared/admin/audit';
import { memoryAuditStore } from '../../../core/shared/admin/memory-audit';
import { securityEvents } from '../../../core/token/security-events';

/** The coalescing of failures (core/token/security-events.ts), on jest's clock. */
describe('security events', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  const setup = (maxKeys?: number) => {
    const store = memoryAuditStore();
    let n = 0;
    const audit = auditTrail({ store, log: pino({ level: 'silent' }), clock: { now: () => Date.now() }, newId: () => `id-${++n}` });
    return { store, events: securityEvents(audit, { windowMs: 10_000, maxKeys }) };
  };
  const settled = () => jest.advanceTimersByTimeAsync(0);

  it('records the first failure of a name and address at once, and the repeats within the window as one event', async () => {
    const { store, events } = setup();
    for (let i = 0; i < 40; i++)
      events.signIn({ realm: 'r', username: 'alice', address: '198.51.100.1', ok: false, reason: 'wrong password, or locked' });
    events.signIn({ realm: 'r', username: 'alice', address: '198.51.100.2', ok: false, reason: 'wrong password, or locked' });
    await settled();
    expect(store.events.map((e) => [e.type, e.address, e.details?.repeats])).toEqual([
      ['login.failure', '198.51.100.1', undefined],
      ['login.failure', '198.51.100.2', undefined],
    ]);
    await jest.advanceTimersByTimeAsync(10_000);
    expect(store.events.map((e) => [e.address, e.details?.repeats])).toEqual([
      ['198.51.100.1', undefined],
      ['198.51.100.2', undefined],
      ['198.51.100.1', 39],
    ]);
    // A new window starts afresh.
    events.signIn({ realm: 'r', username: 'alice', address: '198.51.100.1', ok: false });
    await settled();
    expect(store.events).toHaveLength(4);
  });

  it('records every success (they cost a password check each, so they cannot flood)', async () => {
    const { store, events } = setup();
    for (let i = 0; i < 3; i++) events.signIn({ realm: 'r', username: 'alice', address: '198.51.100.1', ok: true });
    await settled();
    expect(store.events.map((e) => e.type)).toEqual(['login.success', 'login.success', 'login.success']);
  });

  it("past its bound of keys, counts the realm's further failures under one key, without a name or address", async () => {
    const { store, events } = setup(3);
    for (let i = 0; i < 10; i++)
      events.clientFailure({ realm: 'r', clientId: `c${i}`, address: `198.51.100.${i}`, reason: 'no such client' });
    await settled();
    expect(store.events).toHaveLength(4);
    expect(store.events[3]).toMatchObject({ type: 'client.auth-failure', details: { many_sources: true } });
    expect(store.events[3].address).toBeUndefined();
    events.flush();
    await settled();
    expect(store.events.at(-1)).toMatchObject({ details: { many_sources: true, repeats: 6 } });
  });

  it('caps names as presented (a username field can hold anything)', async () => {
    const { store, events } = setup();
    events.signIn({ realm: 'r', username: 'x'.repeat(10_000), ok: false });
    await settled();
    expect(store.events[0].actor.name).toHaveLength(128);
  });
});
