import { apiKeys } from '../../../core/models/keys/keys';
import { sqliteKeyStore } from '../../../core/models/sqlite';
import { Conflict, NotFound } from '../../../core/shared/errors';
import { twoConnections } from './models-db';

/** The gateway's keys over their store: the text made and shown once, only its hash kept, looked up by it. */
const open = () => twoConnections((db, clock) => apiKeys(sqliteKeyStore(db), clock));

describe('API keys', () => {
  it('makes a key whose text is shown once and never kept: the store holds its hash and a prefix to list it by', async () => {
    const s = open();
    const k = await s.one.create({ name: 'ci', tenant: 't', models: ['local-chat'], requestsPerMinute: 5 });
    expect(k.apiKey).toMatch(/^lmk-[A-Za-z0-9_-]{43}$/);
    expect(k).toMatchObject({
      prefix: k.apiKey.slice(0, 10),
      name: 'ci',
      tenant: 't',
      models: ['local-chat'],
      requestsPerMinute: 5,
      tokenBudget: null,
      revokedAt: null,
    });
    expect(k.createdAt).toEqual(new Date(s.now()));
    const { apiKey, ...listed } = k;
    expect(await s.two.list('t')).toEqual([listed]);
    const rows = s.dbs[0].prepare('SELECT * FROM api_keys').all() as Record<string, unknown>[];
    expect(rows).toHaveLength(1);
    expect(Object.values(rows[0]).some((v) => typeof v === 'string' && v.includes(apiKey.slice(10)))).toBe(false);
    await s.close();
  });

  it('verifies the live key its text names, from any process; nothing for another text, a text that cannot be a key, a revoked key', async () => {
    const s = open();
    const k = await s.one.create({ name: 'a', tenant: 't' });
    const other = await s.one.create({ name: 'b', tenant: 't' });
    expect((await s.two.verify(k.apiKey))?.id).toBe(k.id);
    for (const text of [`${k.apiKey}x`, k.apiKey.slice(1), k.prefix, '', `lmk-${'a'.repeat(300)}`])
      expect(await s.two.verify(text)).toBeUndefined();
    await s.advance(1000);
    const revoked = await s.two.revoke(k.id);
    expect(revoked.revokedAt).toEqual(new Date(s.now()));
    expect(await s.one.verify(k.apiKey)).toBeUndefined();
    expect((await s.one.verify(other.apiKey))?.id).toBe(other.id);
    await s.close();
  });

  it('revokes by listing prefix; an unknown id or prefix is not found', async () => {
    const s = open();
    const k = await s.one.create({ name: 'a', tenant: 't' });
    expect((await s.two.revoke(k.prefix)).id).toBe(k.id);
    expect(await s.one.verify(k.apiKey)).toBeUndefined();
    await expect(s.one.revoke('lmk-nokey0')).rejects.toBeInstanceOf(NotFound);
    await s.close();
  });

  it('refuses a key from its expiry on, as a revoked one', async () => {
    const s = open();
    const k = await s.one.create({ name: 'e', tenant: 't', expiresAt: new Date(s.now() + 1000) });
    expect((await s.two.verify(k.apiKey))?.expiresAt).toEqual(new Date(s.now() + 1000));
    await s.advance(999);
    expect((await s.two.verify(k.apiKey))?.id).toBe(k.id);
    await s.advance(1);
    expect(await s.two.verify(k.apiKey)).toBeUndefined();
    expect(await s.two.refusal(k.apiKey)).toEqual({ reason: 'expired key', key: expect.objectContaining({ id: k.id }) });
    await s.close();
  });

  it('rotates a live key into a new one with the same settings, revoking it in the same step; not a revoked, expired or unknown one', async () => {
    const s = open();
    const expiresAt = new Date(s.now() + 60_000);
    const old = await s.one.create({ name: 'r', tenant: 't', models: ['local-chat'], requestsPerMinute: 3, tokenBudget: 9, expiresAt });
    await s.advance(10);
    const { revoked, key } = await s.two.rotate(old.id);
    expect(revoked).toMatchObject({ id: old.id, revokedAt: new Date(s.now()) });
    expect(key).toMatchObject({
      name: 'r',
      tenant: 't',
      models: ['local-chat'],
      requestsPerMinute: 3,
      tokenBudget: 9,
      expiresAt,
      revokedAt: null,
    });
    expect(key.id).not.toBe(old.id);
    expect(key.createdAt).toEqual(new Date(s.now()));
    expect(await s.one.verify(old.apiKey)).toBeUndefined();
    expect((await s.one.verify(key.apiKey))?.id).toBe(key.id);
    await expect(s.one.rotate(old.id)).rejects.toBeInstanceOf(Conflict);
    await expect(s.one.rotate('no-such-id')).rejects.toBeInstanceOf(NotFound);
    await s.advance(60_000);
    await expect(s.one.rotate(key.id)).rejects.toBeInstanceOf(Conflict);
    await s.close();
  });
});
