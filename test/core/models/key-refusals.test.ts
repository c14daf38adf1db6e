import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { auditTrail } from '../../../core/shared/admin/audit';
import { memoryAuditStore } from '../../../core/shared/admin/memory-audit';
import { apiKeys } from '../../../core/models/keys/keys';
import { keyRefusals } from '../../../core/models/keys/refusals';
import { keyCallerOf } from '../../../core/models/keys/key-caller';
import { sqliteKeyStore } from '../../../core/models/sqlite';
import { InvalidKey } from '../../../core/models/errors';
import { eventually } from '../../shared/wait';
import { twoConnections } from './models-db';

/**
 * Refused LM keys as audit events (keys/refusals.ts): why, by prefix only, from where; a flood of
 * bad keys is a bounded number of events, the refused call never waits for one.
 */
function setup(opts: { maxPerWindow?: number; maxTracked?: number } = {}) {
  const s = twoConnections((db, clock) => ({ keys: apiKeys(sqliteKeyStore(db), clock), clock }));
  const store = memoryAuditStore();
  const audit = auditTrail({ store, log: pino({ level: 'silent' }), clock: s.one.clock, newId: randomUUID });
  const refused = keyRefusals({ audit, clock: s.one.clock, keys: s.one.keys, windowMs: 10_000, ...opts });
  return { s, keys: s.one.keys, events: store.events, refused, caller: keyCallerOf(s.one.keys, refused) };
}

describe('refused keys', () => {
  it('says why (unknown, revoked, expired, not a key) with the prefix and address, never the text', async () => {
    const { s, keys, events, caller } = setup();
    const revoked = await keys.create({ name: 'r', tenant: 't' });
    await keys.revoke(revoked.id);
    const expiring = await keys.create({ name: 'e', tenant: 't', expiresAt: new Date(s.now() + 1000) });
    expect((await caller(expiring.apiKey)).key.id).toBe(expiring.id);
    await s.advance(1000);
    const unknown = `lmk-${'A'.repeat(43)}`;
    for (const text of [revoked.apiKey, expiring.apiKey, unknown, 'sk-someone-elses-secret'])
      await expect(caller(`${text}/{"is_cache":0}`, { address: '10.0.0.1' })).rejects.toBeInstanceOf(InvalidKey);
    await eventually(() => events.length === 4);
    expect(events.map((e) => [e.reason, e.actor.name, e.address, e.tenant])).toEqual([
      ['revoked key', revoked.prefix, '10.0.0.1', 't'],
      ['expired key', expiring.prefix, '10.0.0.1', 't'],
      ['unknown key', unknown.slice(0, 10), '10.0.0.1', undefined],
      ['not an LM key', undefined, '10.0.0.1', undefined],
    ]);
    expect(events.every((e) => e.type === 'key.refused' && e.outcome === 'failure' && e.service === 'models')).toBe(true);
    const text = JSON.stringify(events);
    for (const secret of [revoked.apiKey, expiring.apiKey, unknown, 'sk-someone']) expect(text).not.toContain(secret);
    await s.close();
  });

  it('records one event per address and prefix per window, and at most so many per window in all; the next says how many it left out', async () => {
    const { s, events, refused } = setup({ maxPerWindow: 3 });
    const bad = (i: number) => `lmk-${String(i).padStart(6, '0')}${'x'.repeat(37)}`;
    for (let i = 0; i < 50; i++) refused(bad(0), '10.0.0.1');
    refused(bad(0), '10.0.0.2');
    for (let i = 1; i < 10; i++) refused(bad(i), '10.0.0.1');
    await eventually(() => events.length === 3);
    expect(events.map((e) => [e.actor.name, e.address])).toEqual([
      [bad(0).slice(0, 10), '10.0.0.1'],
      [bad(0).slice(0, 10), '10.0.0.2'],
      [bad(1).slice(0, 10), '10.0.0.1'],
    ]);
    // What was left out is counted into the next event: 49 repeats into the second, 8 over the cap into the next window's first.
    expect(events.map((e) => e.details)).toEqual([undefined, { suppressed: 49 }, undefined]);
    await s.advance(10_000);
    refused(bad(0), '10.0.0.1');
    await eventually(() => events.length === 4);
    expect(events[3].details).toEqual({ suppressed: 8 });
    await s.close();
  });

  it('remembers a bounded number of address-and-prefix pairs', async () => {
    const { s, events, refused } = setup({ maxPerWindow: 1e6, maxTracked: 100 });
    for (let i = 0; i < 1000; i++) refused(`lmk-${'q'.repeat(43)}`, `10.0.${i >> 8}.${i & 255}`);
    await eventually(() => events.length === 1000);
    // The oldest pairs were forgotten: the first address is recorded again at once, the newest is not.
    refused(`lmk-${'q'.repeat(43)}`, '10.0.3.231');
    refused(`lmk-${'q'.repeat(43)}`, '10.0.0.0');
    // A pair never seen: once it is recorded, so is whatever came before it.
    refused(`lmk-${'q'.repeat(43)}`, 'marker');
    await eventually(() => events.some((e) => e.address === 'marker'));
    const count = (address: string) => events.filter((e) => e.address === address).length;
    expect([count('10.0.0.0'), count('10.0.3.231')]).toEqual([2, 1]);
    await s.close();
  });
});
