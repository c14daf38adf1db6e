import request from 'supertest';
import { inProcess, type InProcess } from '../../shared/in-process';

/** The search REST face in process: its caller established by the router, its health public. */
let p: InProcess;
let writer: string;
let reader: string;

beforeAll(async () => {
  p = await inProcess(['search']);
  writer = await p.bearer('writer', 'tenant-a', ['search:read', 'search:write']);
  reader = await p.bearer('reader', 'tenant-a', ['search:read']);
});
afterAll(() => p?.close());

describe('the search service in process', () => {
  it('answers its health without a caller, and nothing else', async () => {
    await request(p.app).get('/cl/search/api/v2/healthz').expect(200, { msg: 'ok' });
    const res = await request(p.app).post('/cl/search/api/v2/fulltext?query_string=x').send({});
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer realm="platform"');
    expect(res.body).toEqual({ status: 'error', message: 'Not authenticated' });
  });

  it("adds as a writer, refuses a reader before reading the body, finds in the caller's tenant only", async () => {
    const created = await request(p.app)
      .post('/cl/search/api/v2/objects')
      .set('authorization', writer)
      .send({ title: 'Glaciers', content: 'Glaciers retreat as the climate warms.' })
      .expect(201);
    await request(p.app).post('/cl/search/api/v2/objects').set('authorization', reader).send({ content: 'x' }).expect(403);
    const found = await request(p.app)
      .post('/cl/search/api/v2/fulltext?query_string=glaciers')
      .set('authorization', reader)
      .send({})
      .expect(200);
    expect(found.body.result.map((r: { object_id: string }) => r.object_id)).toEqual([created.body.object_id]);
    const other = await p.bearer('other', 'tenant-b', ['search:read']);
    const none = await request(p.app)
      .post('/cl/search/api/v2/fulltext?query_string=glaciers')
      .set('authorization', other)
      .send({})
      .expect(200);
    expect(none.body.result_count).toBe(0);
  });
});
