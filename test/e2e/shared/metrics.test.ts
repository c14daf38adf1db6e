import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseMetrics, scrape, type Scrape } from '../../shared/telemetry';
import { startPlatformProcess, stopProcess, type PlatformProcess } from './processes';
import { freePort, run, ROOT } from './server';
import { postOperation, run as runOperation, socketClient } from './subscription-wire';
import { eventually } from '../../shared/wait';

/**
 * `platform start` with two workers and METRICS_PORT: traffic through REST (tokens, search, a
 * model call), GraphQL (a query, a subscription over graphql-ws), then /metrics on the management
 * port, parsed as Prometheus parses it: the primary's figures are the workers' added up.
 */
describe('METRICS_PORT: Prometheus metrics of every worker, on the management port only', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'platform-metrics-'));
  let p: PlatformProcess;
  let metricsUrl: string;
  let boot: Record<string, string>;
  let token: string;
  let m: Scrape;
  const post = (path: string, init: { body?: unknown; headers?: Record<string, string>; form?: Record<string, string> } = {}) =>
    fetch(`${p.url}${path}`, {
      method: 'POST',
      headers: {
        ...(init.form ? { 'content-type': 'application/x-www-form-urlencoded' } : init.body ? { 'content-type': 'application/json' } : {}),
        ...init.headers,
      },
      body: init.form ? new URLSearchParams(init.form).toString() : init.body ? JSON.stringify(init.body) : undefined,
    });

  beforeAll(async () => {
    const port = await freePort();
    metricsUrl = `http://127.0.0.1:${port}/metrics`;
    p = await startPlatformProcess(['start'], {
      PLATFORM_DATA_DIR: dataDir,
      PORT: String(await freePort()),
      WORKERS: '2',
      METRICS_PORT: String(port),
      LOG_LEVEL: 'warn',
    });
    boot = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8'));
    const issue = (secret: string) =>
      post('/auth/api/v1/oauth/connect/token', { form: { client_id: boot.client_id, client_secret: secret } });
    // Three tokens and one refused secret, spread over both workers by the primary.
    const issued = await Promise.all([issue(boot.client_secret), issue(boot.client_secret), issue(boot.client_secret), issue('wrong')]);
    expect(issued.map((r) => r.status)).toEqual([200, 200, 200, 401]);
    token = ((await issued[0].json()) as { access_token: string }).access_token;
    const auth = { authorization: `Bearer ${token}` };
    expect(
      (
        await post('/cl/search/api/v2/objects', {
          headers: auth,
          body: { title: 'Glaciers', content: 'Glaciers retreat as the climate warms.' },
        })
      ).status,
    ).toBe(201);
    for (let i = 0; i < 2; i++)
      expect((await post('/cl/search/api/v2/search?query_string=glaciers+climate', { headers: auth, body: {} })).status).toBe(200);
    const chat = await post('/proxy/api/v1/chat/completions', {
      headers: { authorization: `Bearer ${boot.api_key}` },
      body: { model: 'local-chat', messages: [{ role: 'user', content: 'Why do glaciers retreat?' }] },
    });
    expect(chat.status).toBe(200);
    const q = await postOperation(p.url, { query: 'query Find { search(query: "glaciers") { totalCount } }' }, auth);
    expect(q.status).toBe(200);
    const ws = socketClient(p.url, { authorization: `Bearer ${token}`, 'api-key': boot.api_key });
    const sub = await runOperation(
      ws,
      'subscription Stream($q: String!) { answerStream(input: { query: $q }) { response finishReason } }',
      { q: 'Why do glaciers retreat?' },
    );
    await ws.dispose();
    expect(sub.error).toBeUndefined();
    expect(sub.results.at(-1)?.data?.answerStream?.finishReason).toBeTruthy();
    // A subscription's end (its gauge, its operation, its model call) is recorded just after the client sees it.
    await eventually(async () => {
      m = await scrape(metricsUrl);
      return (
        m.total('platform_graphql_subscriptions_open', { transport: 'ws' }) === 0 &&
        m.total('platform_graphql_operations_total', { operation: 'Stream', type: 'subscription' }) >= 1 &&
        m.total('platform_model_calls_total', { model: 'local-chat' }) >= 2
      );
    });
  }, 120_000);
  afterAll(async () => {
    if (p) await stopProcess(p.child);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('counts REST requests per route template and status, over both workers', () => {
    const route = '/auth/api/v1/oauth/connect/token';
    expect(m.total('platform_http_server_request_duration_seconds', { method: 'POST', route, status: '200' })).toBe(3);
    expect(m.total('platform_http_server_request_duration_seconds', { method: 'POST', route, status: '401' })).toBe(1);
    expect(m.total('platform_http_server_request_duration_seconds', { route: '/cl/search/api/v2/search', status: '200' })).toBe(2);
    // Routes are templates, never raw paths.
    expect(
      m.values('platform_http_server_request_duration_seconds', 'route').every((r) => r === 'other' || !/[0-9a-f]{8}-[0-9a-f]{4}/.test(r)),
    ).toBe(true);
  });

  it('counts tokens issued and refused', () => {
    expect(m.total('platform_token_issued_total', { grant_type: 'client_credentials' })).toBe(3);
    expect(m.total('platform_token_failures_total', { grant_type: 'client_credentials', error: 'invalid_client' })).toBe(1);
  });

  it('counts GraphQL operations by name and type, and the subscription is no longer open', () => {
    expect(m.total('platform_graphql_operations_total', { operation: 'Find', type: 'query', outcome: 'ok' })).toBe(1);
    expect(m.total('platform_graphql_operations_total', { operation: 'Stream', type: 'subscription', outcome: 'ok' })).toBe(1);
    expect(m.total('platform_graphql_operation_duration_seconds', { operation: 'Find' })).toBe(1);
    expect(m.total('platform_graphql_subgraph_fetch_duration_seconds', { subgraph: 'search', outcome: 'ok' })).toBeGreaterThanOrEqual(1);
    expect(m.total('platform_graphql_subscriptions_open', { transport: 'ws' })).toBe(0);
  });

  it('counts model calls, tokens and cost per model and tenant', () => {
    const tenant = boot.tenant_id;
    expect(m.total('platform_model_calls_total', { model: 'local-chat', tenant, status: '200' })).toBeGreaterThanOrEqual(2);
    expect(m.total('platform_model_tokens_total', { model: 'local-chat', tenant, direction: 'output' })).toBeGreaterThan(0);
    expect(m.has('platform_model_cost_total')).toBe(true);
    expect(m.total('platform_model_call_duration_seconds', { model: 'local-chat' })).toBeGreaterThanOrEqual(2);
  });

  it('counts searches by mode, and reports the index', () => {
    expect(m.values('platform_search_queries_total', 'mode').length).toBeGreaterThan(0);
    expect(m.total('platform_search_queries_total', { outcome: 'ok' })).toBeGreaterThanOrEqual(2);
    // Both workers hold the same index: the primary reports the largest, not the sum.
    expect(m.total('platform_search_index_objects')).toBe(1);
    expect(m.total('platform_search_index_memory_bytes')).toBeGreaterThan(0);
  });

  it("reports Node's event-loop lag and the process", () => {
    expect(m.has('nodejs_eventloop_lag_p99_seconds')).toBe(true);
    expect(m.has('process_resident_memory_bytes')).toBe(true);
  });

  it('is not served on the public port; the metrics port serves only GET /metrics', async () => {
    expect((await fetch(`${p.url}/metrics`)).status).toBe(404);
    expect((await fetch(metricsUrl.replace('/metrics', '/'))).status).toBe(404);
    const wrong = await fetch(metricsUrl, { method: 'POST' });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('GET, HEAD');
  });

  it('answers fifty scrapes at once, each with every worker', async () => {
    const all = await Promise.all(
      Array.from({ length: 50 }, () => fetch(metricsUrl).then(async (r) => ({ status: r.status, text: await r.text() }))),
    );
    expect(all.every((r) => r.status === 200)).toBe(true);
    for (const r of all) expect(parseMetrics(r.text).total('platform_token_issued_total')).toBe(3);
  });
});

describe('METRICS_PORT at start', () => {
  it('stops start-up with a message naming METRICS_PORT when the port is taken', async () => {
    const holder = createServer();
    const port = await freePort();
    await new Promise<void>((resolve) => holder.listen(port, '127.0.0.1', resolve));
    const dir = mkdtempSync(join(tmpdir(), 'platform-metrics-taken-'));
    try {
      const ran = await run(process.execPath, [join(ROOT, 'dist', 'bin', 'platform.js'), 'start'], {
        env: { PLATFORM_DATA_DIR: dir, PORT: String(await freePort()), WORKERS: '1', METRICS_PORT: String(port) },
      });
      expect(ran.status).not.toBe(0);
      expect(ran.stderr).toContain(`METRICS_PORT ${port} on 127.0.0.1 is taken`);
    } finally {
      holder.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('starts all the same, with a warning, when the default port (METRICS_PORT unset) is taken by another process', async () => {
    const holder = createServer();
    // Held by this test, or already by something else on the host: taken either way.
    await new Promise<void>((resolve) => holder.once('error', () => resolve()).listen(9464, '127.0.0.1', resolve));
    const dir = mkdtempSync(join(tmpdir(), 'platform-metrics-default-'));
    let second: Awaited<ReturnType<typeof startPlatformProcess>> | undefined;
    try {
      second = await startPlatformProcess(['start'], {
        PLATFORM_DATA_DIR: dir,
        PORT: String(await freePort()),
        WORKERS: '1',
        METRICS_PORT: '',
      });
      expect(second.output()).toContain('metrics not served: the default METRICS_PORT 9464 is taken');
      expect(second.output()).not.toContain('Metrics:');
      expect((await fetch(`${second.url}/healthz`)).status).toBe(200);
    } finally {
      // Stopped whatever an assertion said: a platform left running keeps 9464 from the next test.
      if (second) await stopProcess(second.child);
      holder.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('is refused when it is not a port, and OTLP over gRPC is refused by name', async () => {
    const bad = await run(process.execPath, [join(ROOT, 'dist', 'bin', 'platform.js'), 'start'], {
      env: { METRICS_PORT: 'ninety', PLATFORM_DATA_DIR: tmpdir() },
    });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('METRICS_PORT');
    const grpc = await run(process.execPath, [join(ROOT, 'dist', 'bin', 'platform.js'), 'start'], {
      env: { OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc', PLATFORM_DATA_DIR: tmpdir() },
    });
    expect(grpc.status).toBe(2);
    expect(grpc.stderr).toContain('OTEL_EXPORTER_OTLP_PROTOCOL: http/protobuf or http/json');
  }, 60_000);
});
