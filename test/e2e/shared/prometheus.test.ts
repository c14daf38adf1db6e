import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPlatformProcess, stopProcess, type PlatformProcess } from './processes';
import { freePort, run } from './server';

/**
 * A real Prometheus (Debian's `prometheus` package; PROMETHEUS_PATH names its binary, as .ci/run
 * sets it) scraping the platform's METRICS_PORT as docs/observability.md says, and answering
 * PromQL over what it scraped; promtool lints the exposition. Skipped without PROMETHEUS_PATH.
 */
const PROMETHEUS = process.env.PROMETHEUS_PATH;
const PROMTOOL = PROMETHEUS && join(PROMETHEUS, '..', 'promtool');

(PROMETHEUS ? describe : describe.skip)('Prometheus scraping the platform', () => {
  const dir = mkdtempSync(join(tmpdir(), 'platform-prometheus-'));
  let p: PlatformProcess;
  let prometheus: ChildProcess;
  let api: string;
  let metricsPort: number;
  let log = '';

  const query = async (promql: string) => {
    const r = await fetch(`${api}/api/v1/query?query=${encodeURIComponent(promql)}`);
    const body = (await r.json()) as { status: string; data: { result: { metric: Record<string, string>; value: [number, string] }[] } };
    expect(body.status).toBe('success');
    return body.data.result;
  };
  const eventually = async <T>(read: () => Promise<T>, ok: (v: T) => boolean, what: string, ms = 30_000): Promise<T> => {
    const until = Date.now() + ms;
    for (;;) {
      const v = await read().catch(() => undefined);
      if (v !== undefined && ok(v)) return v;
      if (Date.now() > until) throw new Error(`${what} not seen in ${ms} ms (last: ${JSON.stringify(v)})\n${log}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  };

  beforeAll(async () => {
    metricsPort = await freePort();
    p = await startPlatformProcess(['start'], {
      PLATFORM_DATA_DIR: join(dir, 'data'),
      PORT: String(await freePort()),
      WORKERS: '2',
      METRICS_PORT: String(metricsPort),
      LOG_LEVEL: 'warn',
    });
    const boot = JSON.parse(readFileSync(join(dir, 'data', 'bootstrap.json'), 'utf8')) as Record<string, string>;
    for (let i = 0; i < 4; i++) {
      const r = await fetch(`${p.url}/auth/api/v1/oauth/connect/token`, {
        method: 'POST',
        body: new URLSearchParams({ client_id: boot.client_id, client_secret: boot.client_secret }),
      });
      expect(r.status).toBe(200);
    }
    // The scrape configuration docs/deploy/prometheus.yml gives, at a one-second interval.
    writeFileSync(
      join(dir, 'prometheus.yml'),
      [
        'global:',
        '  scrape_interval: 1s',
        'scrape_configs:',
        '  - job_name: platform',
        '    static_configs:',
        `      - targets: ["127.0.0.1:${metricsPort}"]`,
        '',
      ].join('\n'),
    );
    const port = await freePort();
    api = `http://127.0.0.1:${port}`;
    prometheus = spawn(
      PROMETHEUS!,
      [
        `--config.file=${join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${join(dir, 'tsdb')}`,
        `--web.listen-address=127.0.0.1:${port}`,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    prometheus.stdout!.on('data', (d) => (log += d));
    prometheus.stderr!.on('data', (d) => (log += d));
  }, 120_000);
  afterAll(async () => {
    prometheus?.kill('SIGTERM');
    if (p) await stopProcess(p.child);
    rmSync(dir, { recursive: true, force: true });
  });

  it('finds the target up, with no scrape error', async () => {
    const targets = await eventually(
      async () => {
        const r = (await (await fetch(`${api}/api/v1/targets`)).json()) as {
          data: { activeTargets: { health: string; lastError: string; scrapeUrl: string }[] };
        };
        return r.data.activeTargets;
      },
      (t) => t.length === 1 && t[0].health === 'up',
      'target up',
    );
    expect(targets[0]).toMatchObject({ health: 'up', lastError: '', scrapeUrl: `http://127.0.0.1:${metricsPort}/metrics` });
  }, 60_000);

  it('answers PromQL over the platform figures: the tokens issued by both workers, latency quantiles per route', async () => {
    const issued = await eventually(
      () => query('sum(platform_token_issued_total)'),
      (r) => r.length === 1 && r[0].value[1] === '4',
      'four tokens',
    );
    expect(issued[0].value[1]).toBe('4');
    const p95 = await query(
      'histogram_quantile(0.95, sum by (le, route) (platform_http_server_request_duration_seconds_bucket{route="/auth/api/v1/oauth/connect/token"}))',
    );
    expect(p95).toHaveLength(1);
    expect(Number(p95[0].value[1])).toBeGreaterThan(0);
    const lag = await query('nodejs_eventloop_lag_p99_seconds{job="platform"}');
    expect(lag).toHaveLength(1);
  }, 60_000);

  it("passes promtool's lint, but for the names of Node's own default metrics", async () => {
    const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    const lint = await run('bash', ['-c', `"${PROMTOOL}" check metrics`], { input: text });
    // Exit 3: lint findings only (a parse error is exit 1); none may name the platform's own metrics.
    expect([0, 3]).toContain(lint.status);
    const findings = `${lint.stdout}${lint.stderr}`.split('\n').filter(Boolean);
    expect(findings.filter((f) => !/^nodejs_active_\w+_total non-counter metrics/.test(f))).toEqual([]);
  }, 30_000);
});
