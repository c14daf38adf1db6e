/**
 * `npm run bench:graphql-one`: only the one-subgraph query of `npm run bench:graphql`
 * (`{ realm { id name issuer jwksUri } }`) against the same data over REST (the realm's OpenID
 * discovery document), through the platform in one process (`platform start`, WORKERS=1, every
 * subgraph in process) as that bench starts it: BENCH_ROUNDS (3) rounds, REST and the gateway
 * alternated, autocannon BENCH_CONNECTIONS (50) connections for BENCH_SECONDS (5) s each after a
 * one-second warm-up; req/s, the ratio and the platform's CPU per response. Exits 1 when a run failed.
 */
import { treeCpuSeconds } from '../shared/cpu';
import { intEnv } from '../shared/settings';
import { load, verify, type Target } from '../shared/load';
import { problems } from '../shared/report';
import { freePorts, makeTempDir, runBench } from '../shared/platform';
import { startChatPlatform, startUpstream } from '../chat/setup';
import { DOCS } from './setup';

async function main(): Promise<number> {
  const rounds = intEnv('BENCH_ROUNDS', 3, 1);
  const seconds = intEnv('BENCH_SECONDS', 5, 1);
  const connections = intEnv('BENCH_CONNECTIONS', 50, 1);
  process.env.WORKERS = '1';
  const dir = makeTempDir('platform-bench-one-');
  const upstream = await startUpstream(dir);
  const [port] = await freePorts(1);
  const p = await startChatPlatform(dir, port, upstream, DOCS, 4);
  const pid = p.child.proc.pid;
  const rest: Target = {
    name: 'REST',
    method: 'GET',
    url: `${p.url}/auth/api/v1/realms/${p.boot.realm}/.well-known/openid-configuration`,
    check: (j) => typeof (j as Record<string, unknown>)?.jwks_uri === 'string',
    marker: '"jwks_uri"',
  };
  const graph: Target = {
    name: 'gateway',
    method: 'POST',
    url: `${p.url}/graphql`,
    body: JSON.stringify({ query: '{ realm { id name issuer jwksUri } }' }),
    headers: { 'content-type': 'application/json' },
    check: (j) => Boolean((j as { data?: unknown })?.data) && !(j as { errors?: unknown }).errors,
    marker: '"jwksUri"',
  };
  const failures: string[] = [];
  const run = async (t: Target) => {
    await verify(t);
    await load(t, 1, connections);
    const cpu0 = treeCpuSeconds(pid);
    const m = await load(t, seconds, connections);
    const cpu1 = treeCpuSeconds(pid);
    const bad = problems(m);
    if (bad) failures.push(`${t.name}: ${bad}`);
    const cpu = cpu0 !== undefined && cpu1 !== undefined ? ((cpu1 - cpu0) * 1000) / m.requests : Number.NaN;
    return { rps: m.rps, cpu };
  };
  process.stdout.write('| round | REST req/s | CPU ms | gateway req/s | CPU ms | ratio |\n|---|---:|---:|---:|---:|---:|\n');
  for (let r = 1; r <= rounds; r++) {
    const a = await run(rest);
    const b = await run(graph);
    process.stdout.write(
      `| ${r} | ${a.rps.toFixed(0)} | ${a.cpu.toFixed(3)} | ${b.rps.toFixed(0)} | ${b.cpu.toFixed(3)} | ${(b.rps / a.rps).toFixed(2)}x |\n`,
    );
  }
  for (const f of failures) process.stderr.write(`failed: ${f}\n`);
  return failures.length ? 1 : 0;
}

runBench('bench one-subgraph', main);
