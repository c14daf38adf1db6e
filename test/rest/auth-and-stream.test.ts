import express from 'express';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { createTokenVerifier, issuerBaseFor } from '../../core/auth/verifier';
import { bearerAuth, callerOf } from '../../rest/auth';
import { httpErrors } from '../../rest/http-errors';
import { openObjectStream } from '../../rest/stream';
import pino from 'pino';
import { PUBLIC_URL, tokenFixture, type TokenFixture } from '../helpers';

describe('bearer authentication for the services that accept access tokens', () => {
  let fx: TokenFixture;
  let app: express.Express;

  beforeAll(async () => {
    fx = await tokenFixture();
    const verifier = createTokenVerifier({
      issuerBase: issuerBaseFor(PUBLIC_URL),
      clock: fx.clock,
      keys: { key: (realm, kid) => fx.core.keys.verificationKey(realm, kid) },
    });
    app = express();
    app.get('/who', bearerAuth(verifier), (req, res) => void res.json(callerOf(req)));
    app.use(httpErrors(pino({ level: 'silent' })));
  });
  afterAll(() => fx.core.close());

  it('lets a valid token through and exposes the caller', async () => {
    const t = await fx.core.service.issueForClient({ realm: fx.realm, ...fx.client });
    const res = await request(app).get('/who').set('authorization', `Bearer ${t.access_token}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ realm: fx.realm, clientId: 'svc-a', tenantId: fx.realm, roles: ['search:read', 'search:write'] });
  });

  it.each([
    ['no header', undefined, 'Bearer'],
    ['another scheme', 'Basic abc', 'Bearer'],
    ['an empty bearer', 'Bearer ', 'Bearer'],
    ['garbage', 'Bearer not.a.token', 'Bearer error="invalid_token"'],
  ])('answers 401 with WWW-Authenticate for %s', async (_name, header, challenge) => {
    const req = request(app).get('/who');
    const res = await (header === undefined ? req : req.set('authorization', header));
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe(challenge);
    expect(res.body.detail).toMatch(/Not authenticated|Invalid token/);
  });
});

describe('object streams (SSE, or NDJSON on request)', () => {
  const app = express();
  app.get('/stream', (req, res) => {
    const s = openObjectStream(req, res);
    s.send({ n: 1 });
    s.send({ n: 2 });
    s.end();
  });

  it('frames each object as an SSE event and ends with [DONE]', async () => {
    const res = await request(app).get('/stream');
    expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(res.headers['cache-control']).toContain('no-cache');
    expect(res.text).toBe('data: {"n":1}\n\ndata: {"n":2}\n\ndata: [DONE]\n\n');
  });

  it('writes one JSON object per line for Accept: application/x-ndjson', async () => {
    const res = await request(app).get('/stream').set('accept', 'application/x-ndjson');
    expect(res.headers['content-type']).toMatch(/^application\/x-ndjson/);
    expect(res.text).toBe('{"n":1}\n{"n":2}\n');
  });

  it('aborts its signal when the caller goes away', async () => {
    let aborted!: Promise<boolean>;
    const slow = express();
    slow.get('/slow', (req, res) => {
      const s = openObjectStream(req, res);
      s.send({ first: true });
      aborted = new Promise((resolve) => s.signal.addEventListener('abort', () => resolve(true)));
    });
    const server = slow.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => {
      const req = httpRequest({ port, host: '127.0.0.1', path: '/slow' }, (res) => {
        res.once('data', () => {
          req.destroy();
          resolve();
        });
      });
      req.end();
    });
    await expect(aborted).resolves.toBe(true);
    server.close();
  });
});
