/**
 * `npm run bench:telemetry`: what Prometheus metrics and OpenTelemetry traces cost, measured in one
 * run on this machine. Three platforms (`platform start`, WORKERS=1, a fresh data dir each) differ
 * only in their telemetry: (a) METRICS_PORT=0 and traces off, the baseline; (b) metrics on a free
 * port; (c) metrics off, OTEL_TRACES_EXPORTER=otlp to an OTLP/HTTP sink this bench runs
 * (bench/telemetry/otlp-sink.ts), a batch every second (OTEL_BSP_SCHEDULE_DELAY=1000), every
 * trace sampled. Each is loaded in turn with the GraphQL one-subgraph query of `npm run
 * bench:graphql` (with the bootstrap client's token) and the client-credentials token issue of
 * `npm run bench`, in ROUNDS rounds whose order rotates (a b c, b c a, c a b), so a machine that
 * gets busier or quieter during the run weighs on every setup alike. The bench also checks that it
 * measures what it claims: (b) answers /metrics with the requests it was sent, (c)'s spans reach
 * the sink, (a) and (c) serve no metrics.
 *
 * The platforms run on every core but the last, the load generator and the sink on the last
 * (bench/shared/cores.ts), so the work tracing adds beside the answers (V8's collector threads, the
 * export) is charged to the platform once, not again through a starved load generator. A ratio
 * against the baseline is taken round by round, the median of the rounds' ratios reported.
 *
 * Env: DURATION (3) seconds per measured run, ROUNDS (7), BENCH_WARMUP_SECONDS (1, discarded, before
 * every run), BENCH_CONNECTIONS (50), BENCH_PIN (0: no core split); LOG_LEVEL (warn) and
 * OTEL_TRACES_SAMPLER[_ARG], OTEL_EXPORTER_OTLP_PROTOCOL (for c) pass through. About 3½ minutes
 * with the defaults (each run takes DURATION + warm-up + ~0.3 s, 6 runs a round). Exits 1 when a run had failures or a check
 * failed; the targets are printed, not enforced.
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { splitCores } from '../shared/cores';
import { treeCpuSeconds } from '../shared/cpu';
import { load, verify, type Measured, type Target } from '../shared/load';
import { freePorts, logWarnings, machineLine, makeTempDir, runBench, stopMeasured } from '../shared/platform';
import { problems } from '../shared/report';
import { intEnv } from '../shared/settings';
import { issue, tokenTarget } from '../token/targets';
import { startSink, type SinkCounts } from './otlp-sink';
import { everyTrace, table, targets, type Cell } from './report';
import { startSetup, type Setup, type SetupKey } from './setups';

const log = (s: string) => process.stderr.write(s);

/** bench:graphql's one-subgraph query. */
const ONE = '{ realm { id name issuer jwksUri } }';
const TOKEN_ROUTE = '/auth/api/v1/oauth/connect/token';
/** The server span of a request to /graphql carrying ONE: its operation's (gateway/operation-span.ts). */
const GRAPHQL_SPAN = 'graphql query anonymous';
const ENDPOINTS = ['GraphQL one-subgraph query', 'token issue (client credentials)'] as const;
type Endpoint = (typeof ENDPOINTS)[number];

/** A fresh target for each run: the GraphQL query's bearer token is issued just before (tokens live 300 s). */
async function targetFor(endpoint: Endpoint, s: Setup): Promise<Target> {
  if (endpoint === 'token issue (client credentials)') return { ...tokenTarget(s.url, s.boot), name: endpoint };
  const token = await issue(s.url, s.boot);
  return {
    name: endpoint,
    method: 'POST',
    url: `${s.url}/graphql`,
    body: JSON.stringify({ query: ONE }),
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    check: (j) => {
      const r = j as { data?: { realm?: { jwksUri?: unknown } }; errors?: unknown } | undefined;
      return !r?.errors && typeof r?.data?.realm?.jwksUri === 'string';
    },
    marker: '"jwksUri"',
  };
}

/** Sums the request-duration histogram's _count over the series of `route`, from Prometheus's text format. */
function requestsCounted(exposition: string, route: string): number {
  let n = 0;
  for (const line of exposition.split('\n')) {
    if (line.startsWith('platform_http_server_request_duration_seconds_count{') && line.includes(`route="${route}"`))
      n += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return n;
}

/** What (b) serves on its metrics port: problems found, and a line for the report. */
async function checkMetrics(s: Setup, sent: Record<Endpoint, number>): Promise<{ bad: string[]; line: string }> {
  const res = await fetch(s.metricsUrl!, { signal: AbortSignal.timeout(10_000) });
  const text = await res.text();
  const bad: string[] = [];
  if (res.status !== 200 || !/^text\/plain/.test(res.headers.get('content-type') ?? ''))
    bad.push(`(b) ${s.metricsUrl} answered ${res.status} ${res.headers.get('content-type')}`);
  const graphql = requestsCounted(text, '/graphql');
  const token = requestsCounted(text, TOKEN_ROUTE);
  // Every load request was answered or cut (499), and each is counted once: at least the measured ones.
  if (graphql < sent['GraphQL one-subgraph query'])
    bad.push(`(b) /metrics counts ${graphql} requests on /graphql, the bench sent at least ${sent['GraphQL one-subgraph query']}`);
  if (token < sent['token issue (client credentials)'])
    bad.push(
      `(b) /metrics counts ${token} requests on ${TOKEN_ROUTE}, the bench sent at least ${sent['token issue (client credentials)']}`,
    );
  const families = [...text.matchAll(/^# TYPE (platform_\w+) /gm)].map((m) => m[1]);
  const line =
    `(b) ${s.metricsUrl}: ${res.status}, ${Math.round(text.length / 1024)} KiB; platform_http_server_request_duration_seconds_count: ` +
    `/graphql ${graphql}, ${TOKEN_ROUTE} ${token} (measured requests sent: ${sent['GraphQL one-subgraph query']}, ${sent['token issue (client credentials)']}); ` +
    `platform_* families: ${families.join(', ') || 'none'}`;
  return { bad, line };
}

/** What (c) exported to the sink: problems found, and lines for the report. */
function checkSpans(c: SinkCounts, sent: Record<Endpoint, number>): { bad: string[]; lines: string[] } {
  const bad: string[] = [];
  // A request to /graphql and its operation are one server span, named after the operation (the bench's is anonymous).
  const server = { graphql: c.names.get(GRAPHQL_SPAN) ?? 0, token: c.names.get(`POST ${TOKEN_ROUTE}`) ?? 0 };
  if (c.requests === 0 || c.spans === 0) bad.push(`(c) the OTLP sink received ${c.requests} requests and ${c.spans} spans`);
  // Every request is traced unless the operator chose a sampler that records only some (then some must arrive).
  const least = (n: number) => (everyTrace(process.env.OTEL_TRACES_SAMPLER) ? n : 1);
  if (server.graphql < least(sent['GraphQL one-subgraph query']))
    bad.push(
      `(c) ${server.graphql} server spans '${GRAPHQL_SPAN}' reached the sink, the bench sent at least ${sent['GraphQL one-subgraph query']} requests`,
    );
  if (server.token < least(sent['token issue (client credentials)']))
    bad.push(
      `(c) ${server.token} server spans 'POST ${TOKEN_ROUTE}' reached the sink, the bench sent at least ${sent['token issue (client credentials)']} requests`,
    );
  if (c.unreadable) bad.push(`(c) ${c.unreadable} OTLP requests the sink could not read`);
  const names = [...c.names].sort((p, q) => q[1] - p[1]);
  return {
    bad,
    lines: [
      `(c) OTLP sink: ${c.requests} POST /v1/traces, ${(c.bytes / 2 ** 20).toFixed(1)} MiB, ${c.spans} spans, service.name ${[...c.services].join(', ') || 'none'}; ` +
        `server spans: ${GRAPHQL_SPAN} ${server.graphql}, POST ${TOKEN_ROUTE} ${server.token} (measured requests sent: ${sent['GraphQL one-subgraph query']}, ${sent['token issue (client credentials)']})`,
      `(c) spans by name: ${names
        .slice(0, 15)
        .map(([n, k]) => `${n || '(unnamed)'} ${k}`)
        .join('; ')}${names.length > 15 ? `; ... ${names.length - 15} more names` : ''}`,
    ],
  };
}

async function main(): Promise<number> {
  const seconds = intEnv('DURATION', 3, 1);
  const rounds = intEnv('ROUNDS', 7, 1);
  const warmup = intEnv('BENCH_WARMUP_SECONDS', 1, 0);
  const connections = intEnv('BENCH_CONNECTIONS', 50, 1);
  const machine = machineLine();
  const cores = splitCores();
  const dir = makeTempDir('platform-bench-telemetry-');
  const sink = await startSink();
  const failures: string[] = [];
  const [portA, portB, portC, metricsPort] = (await freePorts(4)) as [number, number, number, number];

  const setups: Setup[] = [];
  for (const [key, port] of [
    ['a', portA],
    ['b', portB],
    ['c', portC],
  ] as const) {
    log(`starting setup (${key}) ...\n`);
    const started = Date.now();
    setups.push(await startSetup(key, dir, { port, metricsPort, sinkUrl: sink.url, prefix: cores?.serverPrefix }));
    log(`  answering after ${Date.now() - started} ms\n`);
  }
  for (const s of setups) {
    const banner = readFileSync(s.logFile, 'utf8');
    if ((s.key === 'b') !== banner.includes('Metrics:'))
      failures.push(`${s.name}: its start-up banner ${s.key === 'b' ? 'names no' : 'names a'} metrics address`);
  }

  const cells: Cell[] = ENDPOINTS.flatMap((endpoint) =>
    setups.map((s) => ({ endpoint, setup: s.key, setupName: s.name, runs: [] as Measured[] })),
  );
  const sent = Object.fromEntries(
    setups.map((s) => [s.key, { 'GraphQL one-subgraph query': 0, 'token issue (client credentials)': 0 }]),
  ) as Record<SetupKey, Record<Endpoint, number>>;
  const runOnce = async (endpoint: Endpoint, s: Setup): Promise<Measured> => {
    const t = await targetFor(endpoint, s);
    await verify(t);
    if (warmup) await load(t, warmup, connections);
    const cpu0 = treeCpuSeconds(s.child.proc.pid);
    const m = await load(t, seconds, connections);
    const cpu1 = treeCpuSeconds(s.child.proc.pid);
    if (cpu0 !== undefined && cpu1 !== undefined && m.requests > 0) m.cpuMs = ((cpu1 - cpu0) * 1000) / m.requests;
    sent[s.key][endpoint] += m.requests;
    const bad = problems(m);
    if (bad) failures.push(`${s.name}: ${bad}`);
    return m;
  };

  const order: SetupKey[] = ['a', 'b', 'c'];
  const loads: string[] = [];
  for (let round = 0; round < rounds; round++) {
    const turn = [...order.slice(round % 3), ...order.slice(0, round % 3)];
    const avg = loadavg()
      .map((l) => l.toFixed(2))
      .join(' ');
    loads.push(avg);
    log(`round ${round + 1}/${rounds}, order ${turn.join(' ')}, load average ${avg} ...\n`);
    for (const endpoint of ENDPOINTS) {
      for (const key of turn) {
        const s = setups.find((x) => x.key === key)!;
        const m = await runOnce(endpoint, s);
        cells.find((c) => c.endpoint === endpoint && c.setup === key)!.runs.push(m);
        log(`  ${endpoint}, ${s.name}: ${Math.round(m.rps)} req/s, p50 ${m.p50.toFixed(2)} ms, p99 ${m.p99.toFixed(2)} ms\n`);
      }
    }
  }

  const checks: string[] = [];
  const metrics = await checkMetrics(
    setups.find((s) => s.key === 'b')!,
    sent.b,
  );
  failures.push(...metrics.bad);
  checks.push(metrics.line);
  // The traced platform exports what it still holds when it stops; the others are stopped alike.
  for (const s of setups) await stopMeasured(s.child, failures);
  await sink.close();
  const spans = checkSpans(sink.counts, sent.c);
  failures.push(...spans.bad);
  checks.push(...spans.lines);
  checks.push('(a), (c): no metrics address in their start-up banner (METRICS_PORT=0); (a), (b): OTEL_TRACES_EXPORTER=none');

  const out = [
    machine,
    `autocannon: ${connections} connections, pipelining 1, ${seconds} s per measured run after a ${warmup} s warm-up (discarded); ` +
      `${rounds} rounds, order rotated each round (a b c, b c a, c a b); figures are medians of the rounds, ratios the median of the rounds' ratios`,
    cores?.describe ?? 'cores: not split (BENCH_PIN=0, one core, or no taskset): the servers and the load generator share them',
    `load average at the start of each round: ${loads.join('; ')}`,
    `platform start, WORKERS=1, LOG_LEVEL=${process.env.LOG_LEVEL || 'warn'}, a fresh SQLite data dir each, all three running, one loaded at a time; ` +
      "server CPU: the platform process's user + system time per response",
    ...setups.map((s) => `  ${s.name}: ${s.settings}`),
    `GraphQL: \`${ONE}\` with a bearer token of the bootstrap client; token issue: POST ${TOKEN_ROUTE}?client_id&client_secret (RS256)`,
    '',
    table(cells),
    '',
    ...targets(cells),
    '',
    'checks:',
    ...checks.map((c) => `  ${c}`),
  ];
  process.stdout.write(`${out.join('\n')}\n`);
  const warnings = setups.flatMap((s) => logWarnings(s.logFile).map((w) => `${s.name}: ${w}`));
  if (warnings.length) process.stdout.write(`\nplatform warnings:\n${warnings.join('\n')}\n`);
  if (failures.length) {
    process.stdout.write(`\nFAILURES:\n${failures.map((f) => `- ${f}`).join('\n')}\n`);
    return 1;
  }
  process.stdout.write('\nall runs clean: every response 2xx with the expected body; the checks above passed\n');
  return 0;
}

runBench('bench:telemetry', main);
