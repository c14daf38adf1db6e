import { openTokenCore } from '../../../core/token';
import { sqliteTokenStores } from '../../../core/token/sqlite';
import { prometheusMetrics } from '../../../core/shared/telemetry/prometheus';
import { fastHasher, PUBLIC_URL, pooledKeys, testClock } from '../../shared/helpers';
import { seriesValue } from '../../shared/telemetry';

const PASSWORD = 'correct horse battery';

/** A token core counting into its own registry: realm `main`, client `svc-a`, user `alice`; accounts lock at 3 failures, addresses at 4 a minute. */
async function world() {
  const metrics = prometheusMetrics({ maxTenants: 2 });
  const core = await openTokenCore({
    stores: sqliteTokenStores(':memory:'),
    publicUrl: PUBLIC_URL,
    clock: testClock(),
    lockout: { threshold: 3, seconds: 600 },
    authFailuresPerMinute: 4,
    audience: ['account'],
    hasher: fastHasher,
    generateKey: pooledKeys,
    metrics,
  });
  const realm = (await core.admin.createRealm({ name: 'main' })).id;
  const { client_secret: secret } = await core.admin.createClient({ realm, clientId: 'svc-a', roles: [], scopes: ['openid'] });
  await core.admin.createUser({ realm, username: 'alice', password: PASSWORD, roles: [], tenantId: 'tenant-a' });
  return { core, metrics, realm, secret };
}

describe("the token service's metrics", () => {
  let w: Awaited<ReturnType<typeof world>>;
  beforeEach(async () => {
    w = await world();
  });
  afterEach(() => w.core.close());
  const from = (clientAddress: string) => ({ clientAddress });

  it("counts tokens issued by grant type, once per request (a login's refresh too)", async () => {
    const { core, realm, secret, metrics } = w;
    await core.service.issueForClient({ realm, client_id: 'svc-a', client_secret: secret });
    const login = await core.service.loginUser({ realm, username: 'alice', password: PASSWORD });
    await core.service.issueForClient({
      realm,
      client_id: 'svc-a',
      client_secret: secret,
      grant_type: 'password',
      username: 'alice',
      password: PASSWORD,
    });
    await core.service.loginUser({ realm, grant_type: 'refresh_token', refresh_token: login.refresh_token });
    expect(await seriesValue(metrics, 'platform_token_issued_total', { grant_type: 'client_credentials' })).toBe(1);
    expect(await seriesValue(metrics, 'platform_token_issued_total', { grant_type: 'password' })).toBe(2);
    expect(await seriesValue(metrics, 'platform_token_issued_total', { grant_type: 'refresh_token' })).toBe(1);
  });

  it('counts refusals by grant type and OAuth error code; an unknown grant type is `other`', async () => {
    const { core, realm, secret, metrics } = w;
    const refused = (p: Promise<unknown>) => expect(p).rejects.toBeDefined();
    await refused(core.service.issueForClient({ realm, client_id: 'svc-a', client_secret: 'wrong' }, from('10.0.0.1')));
    await refused(core.service.loginUser({ realm, username: 'alice', password: 'wrong' }, from('10.0.0.2')));
    await refused(core.service.issueForClient({ realm, client_id: 'svc-a', client_secret: secret, grant_type: 'urn:made:up' }));
    await refused(core.service.refresh({ realm, refresh_token: 'not-a-token' }));
    await refused(core.service.issueForClient({ realm: 'nowhere', client_id: 'svc-a', client_secret: secret }));
    expect(await seriesValue(metrics, 'platform_token_failures_total', { grant_type: 'client_credentials', error: 'invalid_client' })).toBe(
      1,
    );
    expect(await seriesValue(metrics, 'platform_token_failures_total', { grant_type: 'password', error: 'invalid_grant' })).toBe(1);
    expect(await seriesValue(metrics, 'platform_token_failures_total', { grant_type: 'other', error: 'unsupported_grant_type' })).toBe(1);
    expect(await seriesValue(metrics, 'platform_token_failures_total', { grant_type: 'refresh_token', error: 'invalid_grant' })).toBe(1);
    expect(
      await seriesValue(metrics, 'platform_token_failures_total', { grant_type: 'client_credentials', error: 'realm_not_found' }),
    ).toBe(1);
    expect(await seriesValue(metrics, 'platform_token_issued_total', { grant_type: 'client_credentials' })).toBe(0);
  });

  it('counts an account locked for a source once, when its failures reach the threshold; another source still signs in', async () => {
    const { core, realm, metrics } = w;
    for (let i = 0; i < 3; i++) {
      await expect(core.service.loginUser({ realm, username: 'alice', password: `wrong ${i}` }, from('10.0.1.1'))).rejects.toMatchObject({
        code: 'invalid_grant',
      });
      expect(await seriesValue(metrics, 'platform_token_lockouts_total')).toBe(i === 2 ? 1 : 0);
    }
    await expect(core.service.loginUser({ realm, username: 'alice', password: PASSWORD }, from('10.0.1.2'))).resolves.toMatchObject({
      token_type: 'Bearer',
    });
  });

  it('counts a caller address throttled once, when its failures fill the window; its refused tries are slow_down failures', async () => {
    const { core, realm, metrics } = w;
    const wrongClient = () => core.service.issueForClient({ realm, client_id: 'svc-a', client_secret: 'wrong' }, from('10.0.2.1'));
    for (let i = 0; i < 4; i++) await expect(wrongClient()).rejects.toMatchObject({ code: 'invalid_client' });
    expect(await seriesValue(metrics, 'platform_token_lockouts_total')).toBe(1);
    await expect(wrongClient()).rejects.toMatchObject({ code: 'slow_down' });
    await expect(wrongClient()).rejects.toMatchObject({ code: 'slow_down' });
    expect(await seriesValue(metrics, 'platform_token_lockouts_total')).toBe(1);
    expect(await seriesValue(metrics, 'platform_token_failures_total', { grant_type: 'client_credentials', error: 'slow_down' })).toBe(2);
    expect(await seriesValue(metrics, 'platform_token_failures_total', { grant_type: 'client_credentials', error: 'invalid_client' })).toBe(
      4,
    );
  });

  it("counts an address throttled once when the failures that fill it are a disabled client's right secret, fifty at once", async () => {
    const { core, realm, metrics, secret } = w;
    await core.admin.setClientEnabled(realm, 'svc-a', false);
    const results = await Promise.allSettled(
      Array.from({ length: 50 }, () => core.service.issueForClient({ realm, client_id: 'svc-a', client_secret: secret }, from('10.0.3.1'))),
    );
    const codes = results.map((r) => (r.status === 'rejected' ? (r.reason as { code?: string }).code : 'issued'));
    expect(codes).not.toContain('issued');
    expect(codes.filter((c) => c === 'invalid_client').length).toBeGreaterThanOrEqual(4);
    expect(await seriesValue(metrics, 'platform_token_lockouts_total')).toBe(1);
    // The window is full: the next try is refused before any check, and counts no new lockout.
    await expect(core.service.issueForClient({ realm, client_id: 'svc-a', client_secret: secret }, from('10.0.3.1'))).rejects.toMatchObject(
      { code: 'slow_down' },
    );
    expect(await seriesValue(metrics, 'platform_token_lockouts_total')).toBe(1);
  });
});
