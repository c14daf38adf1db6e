import request from 'supertest';
import { BadRequest, InternalError, UpstreamFailed } from '../../../core/shared/errors';
import { recentErrors } from '../../../core/shared/telemetry/recent-errors';
import { createRestApp } from '../../../rest/shared/app';
import { detailBody } from '../../../rest/shared/http-errors';
import { define, type RestService } from '../../../rest/shared/routes';
import { streamObjects } from '../../../rest/shared/stream';
import { testClock } from '../../shared/helpers';

/**
 * rest/shared/server-errors.ts: every request that ended in a server-side failure is among the
 * process's recent errors (the overview's), with its service, route, code, request id and what went
 * wrong; the caller's own mistakes are not.
 */
async function* failingMidway() {
  yield { n: 1 };
  throw new UpstreamFailed('the model provider hung up');
}

const service: RestService = {
  name: 'demo',
  title: 'Demo service',
  version: '1.0.0',
  prefix: '/demo/api',
  errorBody: detailBody,
  routes: [
    define({
      method: 'get',
      path: '/items/:id',
      summary: 'an internal failure',
      public: true,
      responses: {},
      handle: async () => {
        throw new InternalError('Internal server error', {
          cause: new TypeError("Cannot read properties of undefined (reading 'id') at /srv/app.js:10"),
        });
      },
    }),
    define({
      method: 'post',
      path: '/upstream',
      summary: 'an upstream failure',
      public: true,
      responses: {},
      handle: async () => {
        throw new UpstreamFailed('OpenAI-compatible server failed (HTTP 500)', { code: 'upstream_error' });
      },
    }),
    define({
      method: 'get',
      path: '/refused',
      summary: "the caller's mistake",
      public: true,
      responses: {},
      handle: async () => {
        throw new BadRequest('bad input, password=hunter2');
      },
    }),
    define({
      method: 'get',
      path: '/stream',
      summary: 'a stream that fails midway',
      public: true,
      responses: {},
      handle: async (_input, { req, res }) => streamObjects(req, res, failingMidway()),
    }),
    define({ method: 'get', path: '/fine', summary: 'fine', public: true, responses: {}, handle: async () => ({ ok: true }) }),
  ],
};

describe('the recent errors of the REST faces', () => {
  const errors = recentErrors({ clock: testClock() });
  const app = createRestApp([service], { recentErrors: errors, readiness: async () => ({ ready: false, checks: { search: 'loading' } }) });
  const recorded = () => errors.list();

  it('records a 500 with its route template, its request id, and the class and message of its cause, no stack', async () => {
    await request(app).get('/demo/api/items/42').set('x-request-id', 'req-500').expect(500, { detail: 'Internal server error' });
    expect(recorded()[0]).toEqual({
      at: expect.any(Number),
      service: 'demo',
      where: 'GET /demo/api/items/:id',
      code: 'internal',
      message: "TypeError: Cannot read properties of undefined (reading 'id') at /srv/app.js:10",
      requestId: 'req-500',
    });
  });

  it('records an upstream failure with its code', async () => {
    await request(app).post('/demo/api/upstream').set('x-request-id', 'req-502').expect(502);
    expect(recorded()[0]).toMatchObject({
      service: 'demo',
      where: 'POST /demo/api/upstream',
      code: 'upstream_error',
      requestId: 'req-502',
    });
    expect(recorded()[0].message).toBe('OpenAI-compatible server failed (HTTP 500)');
  });

  it('records a stream that failed after it started (its answer was 200)', async () => {
    const res = await request(app).get('/demo/api/stream').set('x-request-id', 'req-stream');
    expect(res.status).toBe(200);
    expect(recorded()[0]).toMatchObject({
      where: 'GET /demo/api/stream',
      code: 'upstream',
      message: 'the model provider hung up',
      requestId: 'req-stream',
    });
  });

  it("records neither the caller's mistakes nor answers that went well", async () => {
    const before = recorded().length;
    await request(app).get('/demo/api/refused').expect(400);
    await request(app).get('/demo/api/nope').expect(404);
    await request(app).get('/demo/api/fine').expect(200);
    await request(app).post('/demo/api/fine').expect(405);
    // Not ready yet is /readyz's answer, not a failure.
    await request(app).get('/readyz').expect(503);
    expect(recorded()).toHaveLength(before);
  });
});
