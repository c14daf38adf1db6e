/**
 * `npm run bench:routing`: issue 35's figures alone (`npm run bench:models` runs them too, after
 * its own). The gateway against a bare undici pass-through proxy (one client, calls in a row,
 * rounds interleaving direct, bare proxy, gateway and Portkey on the same fake upstream), then
 * failover under load against the platform and Portkey (bench/models/failover.ts).
 *
 * Env: BENCH_ONE_CLIENT_CALLS (800; 0 skips that part), BENCH_FAILOVER_CONCURRENCY (50),
 * BENCH_FAILOVER_SECONDS (5: the fault's length; 1 s of load before it and 4 s after),
 * BENCH_FAILOVER_ONLY (scenario names, comma-separated), BENCH_FAILOVER_LOG_DIR (each scenario's
 * calls and attempts as JSON), WORKERS and LOG_LEVEL (warn) pass
 * through to the platform. Needs `npm run build` first.
 */
import { machineLine, platformWorkers, runBench, stopMeasured } from '../shared/platform';
import { failoverReport, runScenario, SCENARIOS, gatewayDoor, portkeyDoor, type FailoverOptions, type ScenarioResult } from './failover';
import { merged, oneClient, type Latency } from './latency';
import { overheadLines, overheadRatios } from './overhead';
import { PORTKEY_VERSION } from './peer';
import { latencyTable } from './report';
import { startBench, type Bench } from './setup';
import { callOf, type Way } from './targets';

const intEnv = (name: string, fallback: number) => Number(process.env[name] || fallback);

/** One client, calls in a row, `rounds` rounds each way in turn (stream and not): the latency table and the ratio lines. */
export async function measureOverhead(
  b: Bench,
  order: Way[],
  calls: number,
  rounds = 4,
): Promise<{ table: string; lines: string[]; whole: Latency[]; streamed: Latency[] }> {
  // JIT warm-up of every worker first (the primary hands each new connection to the next worker).
  for (let i = 0; i < 2 * platformWorkers(); i++) {
    for (const stream of [false, true]) await oneClient(callOf('warm-up', b.routes['gateway use_guard 2'], stream), 1, 1000);
  }
  const per = Math.ceil(calls / rounds);
  const got = new Map<string, Latency[]>();
  const add = (name: string, l: Latency) => got.set(name, [...(got.get(name) ?? []), l]);
  const notes: string[] = [];
  for (let r = 0; r < rounds; r++) {
    for (const way of order) {
      add(way, await oneClient(callOf(way, b.routes[way], false), per, Math.round(per / 10)));
      try {
        add(`${way} stream`, await oneClient(callOf(way, b.routes[way], true), per, Math.round(per / 10)));
      } catch (err) {
        // Portkey 1.x answers streams with 500 on some Node versions; said, not fatal.
        if (way !== 'portkey') throw err;
        notes.push(`Portkey could not stream here: ${(err as Error).message.slice(0, 160)}`);
      }
    }
  }
  const whole = order.map((w) => merged(got.get(w)!));
  const streamed = order.filter((w) => got.has(`${w} stream`)).map((w) => ({ ...merged(got.get(`${w} stream`)!), name: w }));
  const pick = (list: Latency[], name: string) => list.find((l) => l.name === name)!;
  const ratios = overheadRatios(pick(whole, 'direct'), pick(whole, 'bare proxy'), pick(whole, 'gateway'), {
    direct: pick(streamed, 'direct'),
    bare: pick(streamed, 'bare proxy'),
    gateway: pick(streamed, 'gateway'),
  });
  return { table: latencyTable(whole, streamed), lines: [...overheadLines(ratios), ...new Set(notes)], whole, streamed };
}

export const failoverOptions = (): FailoverOptions => ({
  concurrency: intEnv('BENCH_FAILOVER_CONCURRENCY', 50),
  warmSeconds: 1,
  faultSeconds: intEnv('BENCH_FAILOVER_SECONDS', 5),
  watchSeconds: 4,
});

/** Every scenario through the platform, then through Portkey, on the same fakes. */
export async function measureFailover(b: Bench, o: FailoverOptions, log: (s: string) => void): Promise<string> {
  const doors = [gatewayDoor(b.platform.url, b.platform.boot.api_key!), portkeyDoor(b.portkey.url, b.fleet)];
  const rows: ScenarioResult[] = [];
  // BENCH_FAILOVER_ONLY: a comma-separated list of scenario names, to run a few.
  const only = process.env.BENCH_FAILOVER_ONLY?.split(',').map((n) => n.trim());
  for (const s of SCENARIOS.filter((x) => !only || only.includes(x.name))) {
    for (const door of doors) {
      log(`failover: ${door.name}, ${s.name} ...\n`);
      rows.push(await runScenario(b.fleet, door, s, o));
    }
  }
  return failoverReport(rows, o);
}

export const failoverHeading = (o: FailoverOptions) =>
  `Failover: three deployments on three fakes, ${o.concurrency} callers in a loop; ${o.warmSeconds} s healthy, ` +
  `${o.faultSeconds} s with the fault, ${o.watchSeconds} s after it ended (the 429 lasts to the end). Gateway policy: fallback in ` +
  `order, no retry on the same deployment, 500 ms per attempt, cooldown after 3 failures in 10 s for 3 s; Portkey: fallback ` +
  `config with the same targets and statuses (and 408, its own timeout), request_timeout 500 ms per target, no cooldown.`;

async function main(): Promise<number> {
  const calls = intEnv('BENCH_ONE_CLIENT_CALLS', 800);
  const out = process.stdout;
  const o = failoverOptions();
  out.write(
    `${machineLine()}\nplatform WORKERS=${platformWorkers()}; Portkey ${PORTKEY_VERSION} (one process); fake upstream, bare proxy, ` +
      `failing fakes (one process each); one client: ${calls} calls per way in 4 rounds (each way in turn)\n\n`,
  );
  const b = await startBench((s) => out.write(s));
  if (calls > 0) {
    const overhead = await measureOverhead(b, ['direct', 'bare proxy', 'gateway', 'portkey'], calls);
    out.write(`One client, one keep-alive connection, calls in a row (ms; "added" is against the direct call)\n\n${overhead.table}\n\n`);
    out.write(`${overhead.lines.join('\n')}\n\n`);
  }
  const report = await measureFailover(b, o, (s) => process.stderr.write(s));
  out.write(`${failoverHeading(o)}\n\n${report}\n`);
  const failures: string[] = [];
  await stopMeasured(b.platform.child, failures);
  await stopMeasured(b.portkey.child, failures);
  if (failures.length) {
    out.write(`\nFAILURES:\n${failures.join('\n')}\n`);
    return 1;
  }
  return 0;
}

if (require.main === module) runBench('bench:routing', main);
