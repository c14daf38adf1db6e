import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { openTokenCore, type TokenCore } from '../../../core/token';
import { sqliteTokenStores } from '../../../core/token/sqlite';
import { fastHasher, pooledKeys } from '../../shared/helpers';
import { freePort, startInTemp, type Started } from '../shared/server';
import { accepts, login, revokeByRest, waitFor, type Bootstrap } from './revocation-faces';

// Each case waits for the refusal for up to a minute (a machine under load), with room to spare.
jest.setTimeout(120_000);

/**
 * Parts served apart (`platform serve <part>`): a part that shares the token service's data
 * directory reads the revoked-sessions list from token.db; one with a data directory of its own
 * polls the token service's public list at AUTH_ISSUER_URL. Either refuses a revoked token without
 * waiting for it to expire, and a part started after a revocation refuses it from its first request.
 */
describe('revocation seen by parts served apart', () => {
  const parts: Started[] = [];
  let token: Started;
  let boot: Bootstrap;

  const serve = async (role: string, env: Record<string, string>) => {
    const p = await startInTemp(role, { AUTH_ISSUER_URL: token.url, ...env });
    parts.push(p);
    return p;
  };

  beforeAll(async () => {
    token = await startInTemp('token');
    parts.push(token);
    // What `platform init` makes: a realm, a user who may search.
    const core = token.instances.token as unknown as TokenCore;
    const realm = await core.admin.createRealm({ name: 'apart' });
    await core.admin.createUser({
      realm: realm.id,
      username: 'ann',
      password: 'a long password',
      roles: ['search:read'],
      tenantId: 'tenant-a',
    });
    boot = { realm: realm.id, tenant_id: 'tenant-a', username: 'ann', password: 'a long password', client_id: '', client_secret: '' };
  }, 60_000);
  afterAll(async () => {
    // The token service may be closed already (the last case); its data directory goes last.
    for (const p of parts.reverse()) await (p === token ? p.close() : p.stop()).catch(() => undefined);
    rmSync(token.dataDir, { recursive: true, force: true });
  });

  it("search and the chat proxy with data directories of their own poll the token service's list", async () => {
    const search = await serve('search', {});
    const chat = await serve('chat', { SEARCH_URL: search.url });
    const t = await login(token.url, boot);
    const faces = [
      [search.url, 'search'],
      [search.url, 'graphql'],
      [chat.url, 'chat'],
    ] as const;
    for (const [base, face] of faces) expect(await accepts(base, face, t.access_token, boot.tenant_id)).toBe(true);
    await revokeByRest(token.url, boot, t.refresh_token);
    for (const [base, face] of faces)
      await waitFor(async () => !(await accepts(base, face, t.access_token, boot.tenant_id)), `refused by ${face} at ${base}`);
  });

  it('a part started after a revocation refuses the token from its first request', async () => {
    const t = await login(token.url, boot);
    await revokeByRest(token.url, boot, t.refresh_token);
    const remote = await serve('search', {});
    expect(await accepts(remote.url, 'search', t.access_token, boot.tenant_id)).toBe(false);
  });

  it('a part whose token service does not answer yet starts, is not ready (revocations: loading) until it has the list, then serves', async () => {
    const port = await freePort();
    const issuer = `http://127.0.0.1:${port}`;
    const search = await serve('search', { AUTH_ISSUER_URL: issuer });
    const ready = async () => {
      const res = await fetch(`${search.url}/readyz`);
      return { status: res.status, body: (await res.json()) as { checks: Record<string, string> } };
    };
    expect(await ready()).toMatchObject({ status: 503, body: { checks: { revocations: 'loading' } } });
    const late = await startInTemp('token', { PORT: String(port) });
    parts.push(late);
    await waitFor(async () => (await ready()).status === 200, 'ready once the token service answers');
    const core = late.instances.token as unknown as TokenCore;
    const realm = await core.admin.createRealm({ name: 'late' });
    await core.admin.createUser({
      realm: realm.id,
      username: 'bo',
      password: 'a long password',
      roles: ['search:read'],
      tenantId: 'tenant-a',
    });
    const t = await login(issuer, { ...boot, realm: realm.id, username: 'bo' });
    expect(await accepts(search.url, 'search', t.access_token, boot.tenant_id)).toBe(true);
  });

  it("search sharing the token service's data directory reads the list from token.db, even with the token service down", async () => {
    const search = await serve('search', { PLATFORM_DATA_DIR: token.dataDir });
    const t = await login(token.url, boot);
    // The realm's keys are fetched (and kept) now, while the token service answers.
    expect(await accepts(search.url, 'search', t.access_token, boot.tenant_id)).toBe(true);
    await token.close();
    // As `platform user logout` does, on token.db: only the file can tell search now.
    const admin = await openTokenCore({
      stores: sqliteTokenStores(join(token.dataDir, 'token.db')),
      publicUrl: token.config.PUBLIC_URL,
      hasher: fastHasher,
      generateKey: pooledKeys,
    });
    try {
      expect(await admin.admin.logout(boot.realm, boot.username)).toMatchObject({ sessions_ended: expect.any(Number) });
    } finally {
      await admin.close();
    }
    await waitFor(async () => !(await accepts(search.url, 'search', t.access_token, boot.tenant_id)), 'refused by search');
  });
});
