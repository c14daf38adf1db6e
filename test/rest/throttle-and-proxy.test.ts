import pino from 'pino';
import request from 'supertest';
import { loadConfig } from '../../core/config';
import { openTokenCore } from '../../core/token';
import { createRestApp } from '../../rest/app';
import { PUBLIC_URL } from '../helpers';

const TOKEN = '/auth/api/v1/oauth/connect/token';
const INTROSPECT = '/auth/api/v1/oauth/connect/introspect';

describe('429 after repeated failed authentications, and the caller address behind proxies', () => {
  const setup = async (trustProxy: false | string[]) => {
    const core = openTokenCore({ file: ':memory:', publicUrl: PUBLIC_URL, authFailuresPerMinute: 2 });
    const realm = (await core.admin.createRealm({ name: 'main' })).id;
    const { client_secret } = await core.admin.createClient({ realm, clientId: 'svc' });
    const app = createRestApp({ token: core.service }, { publicUrl: PUBLIC_URL, log: pino({ level: 'silent' }), trustProxy });
    return { core, realm, client_secret, app };
  };

  it('answers 429 slow_down with Retry-After once an address used up its failures', async () => {
    const { core, realm, client_secret, app } = await setup(false);
    for (let i = 0; i < 2; i++) {
      expect((await request(app).post(TOKEN).query({ realm, client_id: 'svc', client_secret: 'wrong' })).status).toBe(401);
    }
    const res = await request(app).post(TOKEN).query({ realm, client_id: 'svc', client_secret });
    expect(res.status).toBe(429);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(res.body).toMatchObject({ error: 'slow_down', detail: 'Too many failed authentications; try again later' });
    core.close();
  });

  it('believes X-Forwarded-For only from trusted proxies', async () => {
    const trusting = await setup(['loopback']);
    const ok = await request(trusting.app).post(TOKEN).set('x-forwarded-for', '203.0.113.7').query({ realm: trusting.realm, client_id: 'svc', client_secret: trusting.client_secret });
    const seen = await request(trusting.app).post(INTROSPECT).type('form').send({ realm: trusting.realm, token: ok.body.access_token });
    expect(seen.body).toMatchObject({ clientAddress: '203.0.113.7', clientHost: '203.0.113.7' });
    trusting.core.close();

    const strict = await setup(false);
    const spoofed = await request(strict.app).post(TOKEN).set('x-forwarded-for', '203.0.113.7').query({ realm: strict.realm, client_id: 'svc', client_secret: strict.client_secret });
    const seen2 = await request(strict.app).post(INTROSPECT).type('form').send({ realm: strict.realm, token: spoofed.body.access_token });
    expect(seen2.body.clientAddress).toBe('127.0.0.1');
    strict.core.close();
  });

  it('reads TRUST_PROXY and AUTH_FAILURES_PER_MINUTE from the environment', () => {
    expect(loadConfig({})).toMatchObject({ TRUST_PROXY: ['loopback'], AUTH_FAILURES_PER_MINUTE: 30 });
    expect(loadConfig({ TRUST_PROXY: 'false' }).TRUST_PROXY).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, loopback' }).TRUST_PROXY).toEqual(['10.0.0.0/8', 'loopback']);
    expect(() => loadConfig({ AUTH_FAILURES_PER_MINUTE: '0' })).toThrow(/AUTH_FAILURES_PER_MINUTE/);
  });
});
