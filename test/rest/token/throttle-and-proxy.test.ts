import request from 'supertest';
import { loadConfig } from '../../../core/shared/config';
import { configParts } from '../../../bin/deps';
import { SERVICES } from '../../../services/registry';
import { tokenFixture } from '../../shared/helpers';

const TOKEN = '/auth/api/v1/oauth/connect/token';
const INTROSPECT = '/auth/api/v1/oauth/connect/introspect';

describe('429 after repeated failed authentications, and the caller address behind proxies', () => {
  const setup = (trustProxy: false | string[]) => tokenFixture({ authFailuresPerMinute: 2, trustProxy });

  it('answers 429 slow_down with Retry-After once an address used up its failures', async () => {
    const { core, realm, client, app } = await setup(false);
    for (let i = 0; i < 2; i++) {
      expect((await request(app).post(TOKEN).query({ realm, client_id: 'svc-a', client_secret: 'wrong' })).status).toBe(401);
    }
    const res = await request(app)
      .post(TOKEN)
      .query({ realm, ...client });
    expect(res.status).toBe(429);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(res.body).toMatchObject({ error: 'slow_down', detail: 'Too many failed authentications; try again later' });
    await core.close();
  });

  it('cannot be escaped with a made-up X-Forwarded-For when no proxy is trusted (the default)', async () => {
    const { core, realm, client, app } = await setup(false);
    for (let i = 0; i < 2; i++) {
      await request(app).post(TOKEN).set('x-forwarded-for', `198.51.100.${i}`).query({ realm, client_id: 'svc-a', client_secret: 'wrong' });
    }
    const spoofed = await request(app)
      .post(TOKEN)
      .set('x-forwarded-for', '198.51.100.99')
      .query({ realm, ...client });
    expect(spoofed.status).toBe(429);
    await core.close();
  });

  it('believes X-Forwarded-For only from trusted proxies', async () => {
    const trusting = await setup(['loopback']);
    const ok = await request(trusting.app)
      .post(TOKEN)
      .set('x-forwarded-for', '203.0.113.7')
      .query({ realm: trusting.realm, ...trusting.client });
    const seen = await request(trusting.app).post(INTROSPECT).type('form').send({ realm: trusting.realm, token: ok.body.access_token });
    expect(seen.body).toMatchObject({ clientAddress: '203.0.113.7', clientHost: '203.0.113.7' });
    await trusting.core.close();

    const strict = await setup(false);
    const spoofed = await request(strict.app)
      .post(TOKEN)
      .set('x-forwarded-for', '203.0.113.7')
      .query({ realm: strict.realm, ...strict.client });
    const seen2 = await request(strict.app).post(INTROSPECT).type('form').send({ realm: strict.realm, token: spoofed.body.access_token });
    expect(seen2.body.clientAddress).toBe('127.0.0.1');
    await strict.core.close();
  });

  it('reads TRUST_PROXY (no proxy trusted by default), the failure limits, the lockout and AUTH_HASH_CONCURRENCY from the environment', () => {
    const load = (env: Record<string, string>) => loadConfig(env, configParts(SERVICES));
    expect(load({})).toMatchObject({
      TRUST_PROXY: false,
      AUTH_FAILURES_PER_MINUTE: 30,
      AUTH_REALM_FAILURES_PER_MINUTE: 100,
      AUTH_HASH_CONCURRENCY: 1,
      LOCKOUT_THRESHOLD: 5,
      LOCKOUT_ACCOUNT_THRESHOLD: 100,
      LOCKOUT_SECONDS: 900,
    });
    expect(load({ LOCKOUT_ACCOUNT_THRESHOLD: '40', AUTH_REALM_FAILURES_PER_MINUTE: '500' })).toMatchObject({
      LOCKOUT_ACCOUNT_THRESHOLD: 40,
      AUTH_REALM_FAILURES_PER_MINUTE: 500,
    });
    for (const name of ['LOCKOUT_ACCOUNT_THRESHOLD', 'AUTH_REALM_FAILURES_PER_MINUTE'])
      expect(() => load({ [name]: '0' })).toThrow(new RegExp(name));
    expect(load({ AUTH_HASH_CONCURRENCY: '4' })).toMatchObject({ AUTH_HASH_CONCURRENCY: 4 });
    expect(() => load({ AUTH_HASH_CONCURRENCY: '0' })).toThrow(/AUTH_HASH_CONCURRENCY/);
    expect(load({ TRUST_PROXY: 'loopback' }).TRUST_PROXY).toEqual(['loopback']);
    expect(load({ TRUST_PROXY: '10.0.0.0/8, loopback' }).TRUST_PROXY).toEqual(['10.0.0.0/8', 'loopback']);
    expect(() => load({ AUTH_FAILURES_PER_MINUTE: '0' })).toThrow(/AUTH_FAILURES_PER_MINUTE/);
  });
});
