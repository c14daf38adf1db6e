import pino from 'pino';
import request from 'supertest';
import { z } from 'zod';
import type { Caller } from '../../../core/shared/auth/caller';
import { bearerCredentials } from '../../../core/shared/auth/credentials';
import { param } from '../../../core/shared/params';
import { createTokenVerifier, issuerBaseFor } from '../../../core/shared/auth/verifier';
import { createRestApp } from '../../../rest/shared/app';
import { detailBody } from '../../../rest/shared/http-errors';
import { defineFor, type RestService } from '../../../rest/shared/routes';
import { PUBLIC_URL, tokenFixture, type TokenFixture } from '../../shared/helpers';

/** A service whose routes declare what they need of the caller; 401/403 come from the router alone. */
const define = defineFor<Caller>();
const whoami: RestService = {
  title: 'Who am I',
  version: '1',
  prefix: '/who',
  errorBody: detailBody,
  audience: 'search',
  credentials: bearerCredentials,
  routes: [
    define({
      method: 'get',
      path: '/me',
      summary: 'The caller',
      auth: {},
      responses: { 200: { description: 'caller' } },
      handle: async (_input, { ctx }) => ({ subject: ctx.caller.subject, tenant: ctx.caller.tenantId, roles: ctx.caller.roles }),
    }),
    define({
      method: 'post',
      path: '/write',
      summary: 'Needs search:write',
      auth: { roles: ['search:write'] },
      input: { body: z.object({ n: param.int() }) },
      responses: { 200: { description: 'ok' } },
      handle: async (input, { ctx }) => ({ n: input.body.n, by: ctx.caller.clientId }),
    }),
  ],
};

describe('the caller, wired once: Authorization: Bearer on routes that declare auth', () => {
  let fx: TokenFixture;
  let app: ReturnType<typeof createRestApp>;
  let clientToken: string;
  let userToken: string;

  beforeAll(async () => {
    fx = await tokenFixture();
    const verifier = createTokenVerifier({ issuerBase: issuerBaseFor(PUBLIC_URL), keys: fx.core.keySource, clock: fx.clock });
    app = createRestApp([whoami], { log: pino({ level: 'silent' }), verifier });
    clientToken = (await fx.core.service.issueForClient({ realm: fx.realm, ...fx.client })).access_token;
    userToken = (await fx.core.service.loginUser({ realm: fx.realm, ...fx.user })).access_token;
  });
  afterAll(() => fx.core.close());

  it('hands the verified caller to the handler', async () => {
    const res = await request(app).get('/who/me').set('authorization', `Bearer ${userToken}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ subject: expect.any(String), tenant: 'tenant-a', roles: ['search:read'] });
  });

  it.each([
    ['no header', undefined, 'Bearer realm="platform"', 'Not authenticated'],
    ['another scheme', 'Basic abc', 'Bearer realm="platform", error="invalid_token"', 'Invalid token'],
    ['garbage', 'Bearer not.a.token', 'Bearer realm="platform", error="invalid_token"', 'Invalid token: malformed'],
  ])('answers 401 with an RFC 6750 challenge for %s', async (_name, header, challenge, detail) => {
    const req = request(app).get('/who/me');
    const res = await (header === undefined ? req : req.set('authorization', header));
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toContain(challenge);
    expect(res.body.detail).toContain(detail);
  });

  it('answers 403 insufficient_scope naming the role, before looking at the input', async () => {
    const res = await request(app).post('/who/write').set('authorization', `Bearer ${userToken}`).send({ n: 'not a number' });
    expect(res.status).toBe(403);
    expect(res.headers['www-authenticate']).toBe(
      'Bearer realm="platform", error="insufficient_scope", error_description="Missing role \'search:write\'", scope="search:write"',
    );
    expect(res.body).toEqual({ detail: "Missing role 'search:write'" });
  });

  it('validates the input of an authorised caller (422) and then runs the handler', async () => {
    const bad = await request(app).post('/who/write').set('authorization', `Bearer ${clientToken}`).send({ n: 'x' });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0]).toMatchObject({ loc: ['body', 'n'], type: 'int_parsing' });
    const ok = await request(app).post('/who/write').set('authorization', `Bearer ${clientToken}`).send({ n: 7 });
    expect(ok.body).toEqual({ n: 7, by: 'svc-a' });
  });

  it('refuses a token not issued for the service (audience)', async () => {
    const other = createRestApp([{ ...whoami, audience: 'models' }], {
      log: pino({ level: 'silent' }),
      verifier: createTokenVerifier({ issuerBase: issuerBaseFor(PUBLIC_URL), keys: fx.core.keySource, clock: fx.clock }),
    });
    const res = await request(other).get('/who/me').set('authorization', `Bearer ${clientToken}`);
    expect(res.status).toBe(401);
    expect(res.body.detail).toBe('Invalid token: not issued for this service');
  });

  it('documents the bearer scheme in OpenAPI on the protected routes only', async () => {
    const doc = (await request(app).get('/who/openapi.json')).body;
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
    expect(doc.paths['/who/me'].get.security).toEqual([{ bearerAuth: [] }]);
    expect(doc.paths['/who/me'].get.responses).toHaveProperty('401');
    expect(doc.paths['/who/write'].post.responses).toHaveProperty('403');
  });
});
