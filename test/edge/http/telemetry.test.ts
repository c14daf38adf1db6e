import request from 'supertest';
import { inProcess, type InProcess } from '../../shared/in-process';
import { parseMetrics } from '../../shared/telemetry';

/** Every request counted and timed by route template, method and status, through the REST app as served. */
let p: InProcess;
let auth: string;
beforeAll(async () => {
  p = await inProcess(['search']);
  auth = await p.bearer('metrics-reader', 'tenant-m', ['search:read']);
});
afterAll(() => p?.close());

const scrape = async () => parseMetrics(await p.metrics.registry.metrics());
const NAME = 'platform_http_server_request_duration_seconds';

describe('request metrics', () => {
  it('labels a route by its template, never the ids in the path', async () => {
    const ids = ['0b0e7a4e-1111-4222-8333-944445555666', '0b0e7a4e-1111-4222-8333-944445555667'];
    for (const id of ids) await request(p.app).get(`/cl/search/api/v2/objects/${id}`).set('authorization', auth).expect(404);
    const s = await scrape();
    expect(s.total(NAME, { method: 'GET', route: '/cl/search/api/v2/objects/:object_id', status: '404' })).toBe(2);
    expect(s.values(NAME, 'route').some((r) => ids.some((id) => r.includes(id)))).toBe(false);
  });

  it('counts paths no route knows as `other`, and the platform paths by name', async () => {
    for (let i = 0; i < 3; i++) await request(p.app).get(`/nothing/here/${i}`).expect(404);
    await request(p.app).get('/healthz').expect(200);
    await request(p.app).get('/cl/search/api/openapi.json').expect(200);
    const s = await scrape();
    expect(s.total(NAME, { route: 'other', status: '404' })).toBe(3);
    expect(s.total(NAME, { route: '/healthz', status: '200' })).toBe(1);
    expect(s.total(NAME, { route: '/cl/search/api/openapi.json' })).toBe(1);
  });

  it('bounds the method label: an unusual method counts as `other`', async () => {
    await request(p.app).propfind('/healthz');
    expect((await scrape()).total(NAME, { method: 'other', route: '/healthz' })).toBe(1);
  });

  it('times refusals too: 401 without a token and 422 for bad input, with their own status', async () => {
    await request(p.app).post('/cl/search/api/v2/search?query_string=x').send({}).expect(401);
    await request(p.app).post('/cl/search/api/v2/search').set('authorization', auth).send({}).expect(422);
    const s = await scrape();
    expect(s.total(NAME, { route: '/cl/search/api/v2/search', status: '401' })).toBe(1);
    expect(s.total(NAME, { route: '/cl/search/api/v2/search', status: '422' })).toBe(1);
  });

  it('fifty requests in parallel are fifty counts', async () => {
    await Promise.all(Array.from({ length: 50 }, () => request(p.app).get('/readyz')));
    expect((await scrape()).total(NAME, { route: '/readyz' })).toBe(50);
  });
});
