import pino from 'pino';
import request from 'supertest';
import { loadConfig } from '../../../core/shared/config';
import { createRestApp } from '../../../rest/shared/app';
import { tokenRest } from '../../../rest/token';
import { webOriginsFollower } from '../../../edge/http/web-origins';
import { PUBLIC_URL, tokenFixture, type TokenFixture } from '../../shared/helpers';

describe('CORS for browser apps on other origins', () => {
  let fx: TokenFixture;
  let app: ReturnType<typeof createRestApp>;
  const TOKEN = '/auth/api/v1/oauth/connect/token';

  beforeAll(async () => {
    fx = await tokenFixture();
    app = createRestApp([tokenRest(fx.core.service, PUBLIC_URL)], { log: pino({ level: 'silent' }), corsOrigins: ['https://app.example'] });
  });
  afterAll(() => fx.core.close());

  it('answers a preflight from an allowed origin with 204 and the allowed methods and headers', async () => {
    const res = await request(app).options(TOKEN).set('origin', 'https://app.example').set('access-control-request-method', 'POST');
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('https://app.example');
    expect(res.headers['access-control-allow-methods']).toContain('POST');
    expect(res.headers['access-control-allow-headers']).toContain('authorization');
    expect(res.headers['access-control-allow-headers']).toContain('api-key');
    expect(res.headers.vary).toContain('Origin');
  });

  it('marks real responses to an allowed origin and exposes the request id', async () => {
    const res = await request(app)
      .post(TOKEN)
      .set('origin', 'https://app.example')
      .query({ realm: fx.realm, ...fx.client });
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe('https://app.example');
    expect(res.headers['access-control-expose-headers']).toContain('x-request-id');
  });

  it('gives other origins no CORS headers, so browsers refuse them', async () => {
    const pre = await request(app).options(TOKEN).set('origin', 'https://evil.example').set('access-control-request-method', 'POST');
    expect(pre.headers['access-control-allow-origin']).toBeUndefined();
    expect(pre.status).toBe(405);
    const res = await request(app).get('/auth/api/v1/healthz').set('origin', 'https://evil.example');
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });

  describe("a client's registered web origins", () => {
    let withOrigins: ReturnType<typeof createRestApp>;
    beforeAll(async () => {
      await fx.core.admin.createPublicClient({
        realm: fx.realm,
        clientId: 'spa',
        redirectUris: ['https://spa.example/cb'],
        webOrigins: ['https://spa.example'],
      });
      withOrigins = createRestApp([tokenRest(fx.core.service, PUBLIC_URL)], {
        log: pino({ level: 'silent' }),
        corsOrigins: ['https://app.example'],
        webOrigins: webOriginsFollower(() => fx.core.service.webOrigins()),
      });
    });

    it('are allowed, with credentials (keycloak-js calls the token endpoint with credentials: include)', async () => {
      const pre = await request(withOrigins)
        .options(`/auth/api/v1/realms/${fx.realm}/protocol/openid-connect/token`)
        .set('origin', 'https://spa.example')
        .set('access-control-request-method', 'POST');
      expect(pre.status).toBe(204);
      expect(pre.headers['access-control-allow-origin']).toBe('https://spa.example');
      expect(pre.headers['access-control-allow-credentials']).toBe('true');
      // CORS_ORIGINS' origins are not told credentials; others get nothing.
      const listed = await request(withOrigins).get('/auth/api/v1/healthz').set('origin', 'https://app.example');
      expect(listed.headers['access-control-allow-credentials']).toBeUndefined();
      const other = await request(withOrigins).get('/auth/api/v1/healthz').set('origin', 'https://evil.example');
      expect(other.headers['access-control-allow-origin']).toBeUndefined();
    });

    it("a page of the platform's own origin is not a reason to read the registered list again", async () => {
      let reads = 0;
      const counted = createRestApp([tokenRest(fx.core.service, PUBLIC_URL)], {
        log: pino({ level: 'silent' }),
        webOrigins: webOriginsFollower(() => {
          reads++;
          return fx.core.service.webOrigins();
        }),
      });
      for (let i = 0; i < 5; i++) {
        const res = await request(counted).get('/auth/api/v1/healthz').set('host', 'platform.test').set('origin', 'http://platform.test');
        expect(res.status).toBe(200);
        expect(res.headers['access-control-allow-origin']).toBeUndefined();
      }
      expect(reads).toBe(0);
      await request(counted).get('/auth/api/v1/healthz').set('origin', 'https://spa.example');
      expect(reads).toBe(1);
    });

    it('never get CORS headers on the sign-in pages, whose forms are bound to cookies', async () => {
      const res = await request(withOrigins)
        .get(`/auth/api/v1/realms/${fx.realm}/protocol/openid-connect/auth`)
        .query({
          response_type: 'code',
          client_id: 'spa',
          redirect_uri: 'https://spa.example/cb',
          code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
          code_challenge_method: 'S256',
        })
        .set('origin', 'https://spa.example');
      expect(res.status).toBe(200);
      expect(res.text).toContain('kc-form-login');
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
      expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    });
  });

  it('reads CORS_ORIGINS as a comma-separated list, empty by default', () => {
    expect(loadConfig({}).CORS_ORIGINS).toEqual([]);
    expect(loadConfig({ CORS_ORIGINS: 'https://a.example/, https://b.example' }).CORS_ORIGINS).toEqual([
      'https://a.example',
      'https://b.example',
    ]);
  });
});
