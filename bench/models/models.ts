/**
 * `npm run bench:models`: what the model gateway adds to a chat call. A fake OpenAI-wire upstream
 * that answers at once (its own process), the platform (`platform start`, a catalog model on the
 * `openai-compatible` provider pointed at the fake) and Portkey's open-source gateway (installed
 * into a temporary folder, pointed at the same fake) are measured in the same run:
 * - one client, calls in a row: latency of a whole answer and time to a stream's first byte,
 *   direct and through each gateway (the gateway's own cost, with no queueing);
 * - the same against a bare undici pass-through proxy (bench/models/bare-proxy.ts): issue 35's
 *   ratios (bench/models/overhead.ts);
 * - autocannon at 50 and 200 connections, non-streamed and streamed: requests/s and latency;
 * - failover under load, the platform and Portkey (bench/models/failover.ts; BENCH_FAILOVER=0 skips
 *   it, `npm run bench:routing` runs it and the bare-proxy ratios alone).
 * Cache off (`is_cache` 0) so every call reaches the upstream; guards off, 1 and 2.
 *
 * Env: BENCH_SECONDS (5), BENCH_WARMUP_SECONDS (1), BENCH_ONE_CLIENT_CALLS (1000), the failover's
 * (bench/models/routing.ts), WORKERS and
 * LOG_LEVEL (warn) pass through to the platform. Needs `npm run build` first.
 */
import { load, verify, type Measured } from '../shared/load';
import { PORTKEY_VERSION } from './peer';
import { loadTable } from './report';
import { targetOf, type Way } from './targets';
import { verdict } from '../shared/progress';
import { machineLine, platformWorkers, runBench, stopMeasured } from '../shared/platform';
import { failoverHeading, failoverOptions, measureFailover, measureOverhead } from './routing';
import { startBench } from './setup';

const intEnv = (name: string, fallback: number) => Number(process.env[name] || fallback);

async function main(): Promise<number> {
  const seconds = intEnv('BENCH_SECONDS', 5);
  const warmup = intEnv('BENCH_WARMUP_SECONDS', 1);
  const calls = intEnv('BENCH_ONE_CLIENT_CALLS', 1000);
  const out = process.stdout;
  out.write(
    `${machineLine()}\nplatform WORKERS=${platformWorkers()}; Portkey ${PORTKEY_VERSION} (one process); fake upstream (one process); ` +
      `one client: ${calls} calls per way in 4 rounds (each way in turn); load: ${seconds} s after ${warmup} s warm-up\n\n`,
  );
  const b = await startBench((s) => out.write(s));
  const routes = b.routes;
  const order: Way[] = ['direct', 'bare proxy', 'gateway', 'gateway use_guard 1', 'gateway use_guard 2', 'portkey'];
  const overhead = await measureOverhead(b, order, calls);
  const { whole, streamed } = overhead;
  const notes = overhead.lines.filter((l) => l.startsWith('Portkey could not'));
  // Portkey 1.x answers every streamed request with 500 on Node 20 (its log: "TypeError: immutable",
  // a fetch Response's headers changed); its streams are left out, said so, rather than failing the run.
  const refused = async (way: Way, run: () => Promise<void>) => {
    try {
      await run();
    } catch (err) {
      if (way !== 'portkey') throw err;
      notes.push(`Portkey could not stream here: ${(err as Error).message.slice(0, 160)}`);
    }
  };
  out.write(`One client, one keep-alive connection, calls in a row (ms; "added" is against the direct call)\n\n${overhead.table}\n\n`);

  const rows: (Measured & { way: string; connections: number; stream: boolean })[] = [];
  const failures: string[] = [];
  for (const stream of [false, true]) {
    for (const connections of [50, 200]) {
      for (const way of ['direct', 'gateway', 'gateway use_guard 1', 'portkey'] as Way[]) {
        const t = targetOf(`${way}${stream ? ' (stream)' : ''} @${connections}`, routes[way], stream);
        await refused(way, async () => {
          await verify(t);
          if (warmup) await load(t, warmup, connections);
          const m = await load(t, seconds, connections);
          if (m.non2xx || m.errors || m.badBodies)
            failures.push(`${t.name}: ${m.non2xx} non-2xx (${m.codes}), ${m.errors} errors, ${m.badBodies} bad bodies`);
          rows.push({ ...m, way, connections, stream });
        });
      }
    }
  }
  out.write(`Load (autocannon, pipelining 1; whole answers, streamed ones read to [DONE])\n\n${loadTable(rows)}\n\n`);

  const g = whole.find((l) => l.name === 'gateway')!;
  const d = whole.find((l) => l.name === 'direct')!;
  const gs = streamed.find((l) => l.name === 'gateway')!;
  const ds = streamed.find((l) => l.name === 'direct')!;
  const vsPortkey = rows
    .filter((r) => r.way === 'gateway')
    .flatMap((r) => {
      const peer = rows.find((x) => x.way === 'portkey' && x.connections === r.connections && x.stream === r.stream);
      return peer ? [r.rps / peer.rps] : [];
    });
  out.write(
    [
      `target: added latency p50 under 1 ms (no guards): ${(g.p50 - d.p50).toFixed(2)} ms: ${verdict(g.p50 - d.p50 < 1)}`,
      `target: added latency p99 under 3 ms (no guards): ${(g.p99 - d.p99).toFixed(2)} ms: ${verdict(g.p99 - d.p99 < 3)}`,
      `target: at least 2x Portkey's requests/s: ${vsPortkey.map((v) => `${v.toFixed(2)}x`).join(', ')}: ${verdict(vsPortkey.every((v) => v >= 2))}`,
      `target: stream first byte within 1 ms of direct (p50): ${(gs.ttfb50 - ds.ttfb50).toFixed(2)} ms: ${verdict(gs.ttfb50 - ds.ttfb50 <= 1)}`,
      ...overhead.lines.filter((l) => !l.startsWith('Portkey could not')),
      ...[...new Set(notes)],
    ].join('\n'),
  );
  out.write('\n\n');
  if (process.env.BENCH_FAILOVER !== '0') {
    const o = failoverOptions();
    out.write(`${failoverHeading(o)}\n\n${await measureFailover(b, o, (s) => process.stderr.write(s))}\n`);
  }
  const platform = b.platform;
  const portkey = b.portkey;
  await stopMeasured(platform.child, failures);
  await stopMeasured(portkey.child, failures);
  if (failures.length) {
    out.write(`\nFAILURES:\n${failures.join('\n')}\n`);
    return 1;
  }
  out.write('all runs clean: every response 2xx with the expected body, no connection errors\n');
  return 0;
}

runBench('bench:models', main);
