/**
 * `npm run bench:graphql`: what the federated graph costs and how it compares, measured in one run
 * on this machine (see docs/performance.md, "GraphQL gateway"):
 * - a one-subgraph query (`{ realm { id name issuer jwksUri } }`) against the same data over REST,
 *   against the token subgraph served alone, through our gateway (subgraphs in process; remote),
 *   through a plain @apollo/gateway and through Hive Gateway over the same remote subgraphs;
 * - a query spanning three subgraphs (token, search, models) through the four gateways, against
 *   each subgraph asked its part directly; then the same with a different search word per request
 *   (bench/graphql/varied.ts), against the search subgraph asked with the same words;
 * - subscription fan-out: BENCH_SUBSCRIBERS (500) streamed answers at once through our gateway,
 *   after the same burst once to warm up (its figures shown too).
 * autocannon, BENCH_CONNECTIONS (50) connections, BENCH_SECONDS (5) s per run after a
 * BENCH_WARMUP_SECONDS (1) s warm-up. Exits 1 when a run had failures.
 */
import { header, loadAverage } from '../shared/settings';
import { load, verify, type Measured, type Target } from '../shared/load';
import { problems, table } from '../shared/report';
import { treeCpuSeconds } from '../shared/cpu';
import { fanOut, type FanOut } from './fanout';
import { bodies, loadVaried, variedSearches, SEARCH_VARIED, THREE_VARIED, TOPIC, type VariedTarget } from './varied';
import { startDeployments, type Deployments } from './setup';
import { logWarnings, makeTempDir, runBench } from '../shared/platform';

const log = (s: string) => process.stderr.write(s);

function intEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const v = Number(raw);
  if (!Number.isInteger(v) || v < 0) throw new Error(`${name} must be a non-negative integer, not '${raw}'`);
  return v;
}

const ONE = '{ realm { id name issuer jwksUri } }';
const THREE = `{ viewer { username realm { name } } search(query: "${TOPIC}") { totalCount hits { document { title } } } models { id contextLength } }`;
const SLICES: [string, string][] = [
  ['token', '{ viewer { username realm { name } } }'],
  ['search', `{ search(query: "${TOPIC}") { totalCount hits { document { title } } } }`],
  ['models', '{ models { id contextLength } }'],
];

type Json = { data?: Record<string, any>; errors?: unknown[] } | undefined;
const gql = (name: string, url: string, query: string, marker: string, headers: Record<string, string> = {}): Target => ({
  name,
  method: 'POST',
  url: `${url}/graphql`,
  body: JSON.stringify({ query }),
  headers: { 'content-type': 'application/json', ...headers },
  check: (j) => !(j as Json)?.errors && Boolean((j as Json)?.data),
  marker,
});

async function main(): Promise<number> {
  const seconds = intEnv('BENCH_SECONDS', 5) || 5;
  const warmup = intEnv('BENCH_WARMUP_SECONDS', 1);
  const connections = intEnv('BENCH_CONNECTIONS', 50) || 50;
  const subscribers = intEnv('BENCH_SUBSCRIBERS', 500);
  const before = loadAverage();
  // Every subscriber of the fan-out connects from this one address: the processes allow it that many
  // sockets (GRAPHQL_WS_MAX_SOCKETS_PER_ADDRESS, 50 by default, would refuse the rest with 429), and
  // the warm-up's too, which the server may still be closing when the measured burst connects.
  process.env.GRAPHQL_WS_MAX_SOCKETS_PER_ADDRESS = String(Math.max(50, 2 * subscribers));
  const dir = makeTempDir('platform-bench-graphql-');
  const d = await startDeployments(dir, log);
  const failures: string[] = [];
  const auth = async () => ({ authorization: (await d.platform.tok.headers()).authorization, 'api-key': d.platform.apiKey });

  /** One target: checked once, warmed, loaded; CPU per response of the server process that answers it. */
  const run = async (t: Target | VariedTarget, serverPid: number | undefined): Promise<Measured> => {
    const go = (s: number) => ('bodies' in t ? loadVaried(t, s, connections) : load(t, s, connections));
    await verify(t);
    if (warmup) await go(warmup);
    log(`  ${t.name} ...\n`);
    const cpu0 = treeCpuSeconds(serverPid);
    const m = await go(seconds);
    const cpu1 = treeCpuSeconds(serverPid);
    if (cpu0 !== undefined && cpu1 !== undefined && m.requests > 0) m.cpuMs = ((cpu1 - cpu0) * 1000) / m.requests;
    const bad = problems(m);
    if (bad) failures.push(`${'bodies' in t ? 'varied words, ' : ''}${t.name}: ${bad}`);
    return m;
  };
  const [apollo, hive] = d.peers as [Deployments['gateway'], Deployments['gateway']];
  const inProc = 'our gateway, subgraphs in process';
  const remote = 'our gateway, remote subgraphs';
  const pid = (c: { child: { proc: { pid?: number } } }) => c.child.proc.pid;

  log('one-subgraph query ...\n');
  const realm = d.platform.boot.realm;
  const one: Measured[] = [];
  one.push(
    await run(
      {
        name: "REST: the realm's OpenID discovery document",
        method: 'GET',
        url: `${d.platform.url}/auth/api/v1/realms/${realm}/.well-known/openid-configuration`,
        check: (j) => typeof (j as Record<string, unknown>)?.jwks_uri === 'string',
        marker: '"jwks_uri"',
      },
      pid(d.platform),
    ),
  );
  one.push(await run(gql('token subgraph directly (served alone)', d.alone.token.url, ONE, '"jwksUri"'), pid(d.alone.token)));
  one.push(await run(gql('our gateway, subgraphs in process', d.platform.url, ONE, '"jwksUri"'), pid(d.platform)));
  one.push(await run(gql('our gateway, remote subgraphs', d.gateway.url, ONE, '"jwksUri"'), pid(d.gateway)));
  one.push(await run(gql(apollo.name, apollo.url, ONE, '"jwksUri"'), pid(apollo)));
  one.push(await run(gql(hive.name, hive.url, ONE, '"jwksUri"'), pid(hive)));

  log('three-subgraph query ...\n');
  const slices: Measured[] = [];
  for (const [name, query] of SLICES)
    slices.push(
      await run(gql(`${name} subgraph directly, its part`, d.alone[name].url, query, '"data"', await auth()), pid(d.alone[name])),
    );
  const three: Measured[] = [];
  three.push(await run(gql('our gateway, subgraphs in process', d.platform.url, THREE, '"models":[{', await auth()), pid(d.platform)));
  three.push(await run(gql('our gateway, remote subgraphs', d.gateway.url, THREE, '"models":[{', await auth()), pid(d.gateway)));
  three.push(await run(gql(apollo.name, apollo.url, THREE, '"models":[{', await auth()), pid(apollo)));
  three.push(await run(gql(hive.name, hive.url, THREE, '"models":[{', await auth()), pid(hive)));

  const searches = variedSearches();
  log(`three-subgraph query, a different search word per request (${searches.length} searches) ...\n`);
  const varied = (name: string, url: string, query: string, marker: string, headers: Record<string, string>): VariedTarget => {
    const all = bodies(query, searches);
    return { ...gql(name, url, query, marker, headers), body: all[0], bodies: all };
  };
  const searchVaried = await run(
    varied('search subgraph directly, its part', d.alone.search.url, SEARCH_VARIED, '"data"', await auth()),
    pid(d.alone.search),
  );
  const threeVaried: Measured[] = [];
  threeVaried.push(await run(varied(inProc, d.platform.url, THREE_VARIED, '"models":[{', await auth()), pid(d.platform)));
  threeVaried.push(await run(varied(remote, d.gateway.url, THREE_VARIED, '"models":[{', await auth()), pid(d.gateway)));
  threeVaried.push(await run(varied(apollo.name, apollo.url, THREE_VARIED, '"models":[{', await auth()), pid(apollo)));
  threeVaried.push(await run(varied(hive.name, hive.url, THREE_VARIED, '"models":[{', await auth()), pid(hive)));

  const fans: [string, FanOut][] = [];
  const coldFans: [string, FanOut][] = [];
  if (subscribers > 0) {
    const question = 'What are the side effects of aspirin?';
    for (const [name, url, p] of [
      ['our gateway, subgraphs in process', d.platform.url, pid(d.platform)],
      ['our gateway, remote subgraphs', d.gateway.url, pid(d.gateway)],
    ] as const) {
      // Warmed as every other run is, at the load it is measured at: the first answers a process
      // streams pay for its JIT, its first connections to the model and search's first reads (the
      // CPU per answer of 500 at once falls from ~4.6 to ~3 ms over the first rounds). The warm-up
      // burst is reported too: it is what the first burst after a start gets.
      if (warmup) {
        log(`subscription fan-out warm-up, ${name} ...\n`);
        const w = await fanOut(`${url}/graphql`, await auth(), subscribers, p, question);
        if (w.failed) failures.push(`fan-out warm-up through ${name}: ${w.failed} failed (first: ${w.firstError})`);
        coldFans.push([`${name}, the first ${subscribers} after start (the warm-up)`, w]);
      }
      log(`subscription fan-out, ${name} ...\n`);
      const f = await fanOut(`${url}/graphql`, await auth(), subscribers, p, question);
      if (f.failed) failures.push(`fan-out through ${name}: ${f.failed} of ${subscribers} failed (first: ${f.firstError})`);
      fans.push([name, f]);
    }
  }

  const slowest = slices.reduce((a, b) => (b.p50 > a.p50 ? b : a));
  const rps = (rows: Measured[], name: string) => rows.find((r) => r.name === name)?.rps ?? Number.NaN;
  const x = (a: number, b: number) => `${(a / b).toFixed(2)}x`;
  const out = [
    header({ seconds, coldSeconds: 0, connections, warmup }, before)
      .split('\n')
      .filter((l) => !l.includes('cold'))
      .join('\n'),
    "every process WORKERS=1 (one process each, as the peers); server CPU: the answering process only (a gateway's own, not its subgraphs')",
    '',
    `### One-subgraph query \`${ONE}\` (baseline: the same data over REST)`,
    '',
    table(one, one[0]),
    '',
    `### Three subgraphs: \`${THREE}\` (baseline: the slowest part asked of its subgraph directly)`,
    '',
    table([...slices, ...three], slowest),
    '',
    `### Three subgraphs, a different search word per request: \`${THREE_VARIED}\` (baseline: the search part asked of its subgraph directly with the same words)`,
    '',
    `$q: "${TOPIC} <word>" with each of ${searches.length} content words of SciFact's queries in turn, the same order for every target; token's and models' parts are the same in every request`,
    '',
    table([searchVaried, ...threeVaried], searchVaried),
    '',
    `req/s with varied words / with one query: ${[inProc, remote, apollo.name, hive.name].map((n) => `${n} ${x(rps(threeVaried, n), rps(three, n))}`).join(', ')}`,
    '',
  ];
  if (fans.length) {
    out.push(
      `### Subscription fan-out: ${subscribers} streamed answers at once over graphql-ws (each its own socket; the fake model streams 10 pieces 2 ms apart${warmup ? `; after the same burst once to warm up, shown in its own rows` : ''})`,
      '',
    );
    out.push(
      '| through | first event p50 ms | p99 ms | whole answer p50 ms | p99 ms | all done in ms | failed | server RSS before MiB | peak MiB |',
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    );
    for (const [name, f] of [...coldFans, ...fans]) {
      out.push(
        `| ${name} | ${f.firstP50.toFixed(0)} | ${f.firstP99.toFixed(0)} | ${f.doneP50.toFixed(0)} | ${f.doneP99.toFixed(0)} | ${f.wallMs.toFixed(0)} | ${f.failed} | ${f.rssBeforeMiB.toFixed(0)} | ${f.rssPeakMiB.toFixed(0)} |`,
      );
    }
    out.push('');
  }
  const oneRatio = rps(one, inProc) / one[0].rps;
  const ahead = (rows: Measured[], ours: string) => [apollo.name, hive.name].every((p) => rps(rows, ours) > rps(rows, p));
  const vsPeers = (rows: Measured[], ours: string) =>
    `${x(rps(rows, ours), rps(rows, apollo.name))} Apollo's, ${x(rps(rows, ours), rps(rows, hive.name))} Hive's`;
  out.push('### Targets (issue 36)', '');
  out.push(
    `- one-subgraph query through the gateway >= 0.8x the same data over REST, in process: ${oneRatio >= 0.8 ? 'met' : 'not met'} (${x(rps(one, inProc), one[0].rps)} in process, ${x(rps(one, remote), one[0].rps)} remote)`,
  );
  out.push(
    `- three subgraphs, a different search word per request, ahead of plain @apollo/gateway and Hive Gateway (over remote subgraphs) in process and remote: ${ahead(threeVaried, inProc) && ahead(threeVaried, remote) ? 'met' : 'not met'}` +
      ` (in process: ${vsPeers(threeVaried, inProc)}; remote: ${vsPeers(threeVaried, remote)})`,
  );
  out.push(
    `- ahead of both on the other queries too, remote: ${ahead(one, remote) && ahead(three, remote) ? 'met' : 'not met'} (one subgraph: ${vsPeers(one, remote)}; three: ${vsPeers(three, remote)})`,
  );
  if (fans.length) {
    const first = fans[0][1].firstP50;
    const cold = coldFans[0]?.[1].firstP50;
    out.push(
      `- ${subscribers} streamed answers at once, first event p50 under 1 s in process: ${first < 1000 ? 'met' : 'not met'} (${first.toFixed(0)} ms${cold === undefined ? '' : `; the first burst after start: ${cold.toFixed(0)} ms`})`,
    );
  }
  out.push(
    `- gateway over the token subgraph directly, one-subgraph query: ${x(rps(one, remote), rps(one, 'token subgraph directly (served alone)'))} remote`,
  );
  process.stdout.write(`${out.join('\n')}\n`);
  const warnings = logWarnings(d.platform.logFile);
  if (warnings.length) process.stdout.write(`\nplatform warnings:\n${warnings.join('\n')}\n`);
  if (failures.length) {
    process.stdout.write(`\nFAILURES:\n${failures.map((f) => `- ${f}`).join('\n')}\n`);
    return 1;
  }
  return 0;
}

runBench('bench:graphql', main);
