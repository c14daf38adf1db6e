import express, { Router } from 'express';
import request from 'supertest';
import { prometheusMetrics } from '../../../core/shared/telemetry/prometheus';
import { routeMatched, serverTelemetry } from '../../../edge/http/telemetry';

/** The request-duration histogram's route labels, as the app in front of the gateway and the REST routers records them. */
describe('serverTelemetry: the route label', () => {
  const metrics = prometheusMetrics({ maxTenants: 10 });
  const app = express();
  app.use(serverTelemetry({ metrics, tracing: false }));
  // Mounted as bin/start.ts mounts the graph: a router at '/' that serves '/graphql' itself.
  const graph = Router();
  graph.use('/graphql', (_req, res) => void res.json({ data: {} }));
  app.use('/', graph);
  const rest = Router();
  rest.get('/objects/:id', (_req, res) => {
    routeMatched(res, '/cl/search/api/v2/objects/:id');
    res.json({});
  });
  app.use('/cl/search/api/v2', rest);
  app.use((_req, res) => void res.status(404).json({}));

  const count = async (route: string) => {
    const text = await metrics.registry.getSingleMetricAsString('platform_http_server_request_duration_seconds');
    const line = text.split('\n').find((l) => l.startsWith('platform_http_server_request_duration_seconds_count{') && l.includes(`route="${route}"`));
    return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
  };

  it('names /graphql though the router that serves it is mounted on a path of its own', async () => {
    await request(app).post('/graphql').send({ query: '{ a }' }).expect(200);
    await request(app).post('/graphql').send({ query: '{ a }' }).expect(200);
    expect(await count('/graphql')).toBe(2);
    expect(await count('/')).toBe(0);
  });

  it('names a REST route by its template, and any unknown path `other`', async () => {
    await request(app).get('/cl/search/api/v2/objects/abc-123').expect(200);
    await request(app).get('/no/such/path/xyz').expect(404);
    expect(await count('/cl/search/api/v2/objects/:id')).toBe(1);
    expect(await count('other')).toBe(1);
    const text = await metrics.registry.getSingleMetricAsString('platform_http_server_request_duration_seconds');
    expect(text).not.toContain('abc-123');
    expect(text).not.toContain('xyz');
  });
});
