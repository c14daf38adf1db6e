/**
 * `npm run bench:models`: what the model gateway adds to a chat call. A fake OpenAI-wire upstream
 * that answers at once (its own process), the platform (`platform start`, a catalog model on the
 * `openai-compatible` provider pointed at the fake) and Portkey's open-source gateway (installed
 * into a temporary folder, pointed at the same fake) are measured in the same run:
 * - one client, calls in a row: latency of a whole answer and time to a stream's first byte,
 *   direct and through each gateway (the gateway's own cost, with no queueing);
 * - autocannon at 50 and 200 connections, non-streamed and streamed: requests/s and latency.
 * Cache off (`is_cache` 0) so every call reaches the upstream; guards off, 1 and 2.
 *
 * Env: BENCH_SECONDS (5), BENCH_WARMUP_SECONDS (1), BENCH_ONE_CLIENT_CALLS (1000), WORKERS and
 * LOG_LEVEL (warn) pass through to the platform. Needs `npm run build` first.
 */
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DEFAULT_CATALOG } from '../../core/models/catalog/catalog';
import { load, verify, type Measured } from '../shared/load';
import { merged, oneClient, type Latency } from './latency';
import { installPortkey, PORTKEY_VERSION, startPortkey } from './peer';
import { latencyTable, loadTable } from './report';
import { BENCH_MODEL, callOf, targetOf, ways, type Way } from './targets';
import { startChild } from '../shared/procs';
import { verdict } from '../shared/progress';
import { freePorts, machineLine, makeTempDir, platformWorkers, ROOT, runBench, startPlatform, stopMeasured } from '../shared/platform';

const intEnv = (name: string, fallback: number) => Number(process.env[name] || fallback);

async function startUpstream(dir: string): Promise<string> {
  const file = join(dir, 'upstream.json');
  const child = startChild('upstream', [join(ROOT, 'dist', 'bench', 'models', 'upstream.js')], {
    cwd: ROOT,
    env: { ...process.env, BENCH_UPSTREAM_FILE: file },
    logFile: join(dir, 'upstream.log'),
  });
  for (let i = 0; i < 100 && !existsSync(file); i++) await sleep(100);
  if (!existsSync(file)) throw new Error(`the fake upstream did not start:\n${child.output()}`);
  return (JSON.parse(readFileSync(file, 'utf8')) as { url: string }).url;
}

async function main(): Promise<number> {
  const seconds = intEnv('BENCH_SECONDS', 5);
  const warmup = intEnv('BENCH_WARMUP_SECONDS', 1);
  const calls = intEnv('BENCH_ONE_CLIENT_CALLS', 1000);
  const out = process.stdout;
  out.write(
    `${machineLine()}\nplatform WORKERS=${platformWorkers()}; Portkey ${PORTKEY_VERSION} (one process); fake upstream (one process); ` +
      `one client: ${calls} calls per way in 4 rounds (each way in turn); load: ${seconds} s after ${warmup} s warm-up\n\n`,
  );
  const dir = makeTempDir('models-bench-');
  const pkg = installPortkey((s) => out.write(s));
  const [platformPort, portkeyPort] = (await freePorts(2)) as [number, number];
  const upstream = await startUpstream(dir);
  const catalog = join(dir, 'catalog.json');
  writeFileSync(
    catalog,
    JSON.stringify({
      models: [
        ...DEFAULT_CATALOG.models,
        {
          id: BENCH_MODEL,
          group: 'A',
          kind: 'chat',
          contextLength: 8192,
          upstream: { provider: 'openai-compatible', baseUrl: `${upstream}/v1`, model: 'bench-model' },
        },
      ],
    }),
  );
  process.env.MODELS_CATALOG_FILE = catalog;
  const platform = await startPlatform(dir, platformPort);
  const portkey = await startPortkey(pkg, portkeyPort, join(dir, 'portkey.log'));
  const routes = ways({ upstream, gateway: platform.url, portkey: portkey.url, apiKey: platform.boot.api_key! });
  const order: Way[] = ['direct', 'gateway', 'gateway use_guard 1', 'gateway use_guard 2', 'portkey'];

  const whole: Latency[] = [];
  const streamed: Latency[] = [];
  const notes: string[] = [];
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
  // JIT warm-up of every worker on both paths first (the primary hands each new connection to the
  // next worker), so the first way measured is not the coldest.
  for (let i = 0; i < 2 * platformWorkers(); i++) {
    for (const stream of [false, true]) await oneClient(callOf('warm-up', routes['gateway use_guard 2'], stream), 1, 1000);
  }
  // Rounds, each way in turn, so a pause of the shared machine (or a worker's GC) lands on every way alike.
  const rounds = 4;
  const per = Math.ceil(calls / rounds);
  const got = new Map<string, Latency[]>();
  const add = (name: string, l: Latency) => got.set(name, [...(got.get(name) ?? []), l]);
  for (let r = 0; r < rounds; r++) {
    for (const way of order) {
      add(`${way}`, await oneClient(callOf(way, routes[way], false), per, Math.round(per / 10)));
      await refused(way, async () => void add(`${way} stream`, await oneClient(callOf(way, routes[way], true), per, Math.round(per / 10))));
    }
  }
  for (const way of order) {
    whole.push(merged(got.get(way)!));
    const s = got.get(`${way} stream`);
    if (s) streamed.push({ ...merged(s), name: way });
  }
  out.write(
    `One client, one keep-alive connection, calls in a row (ms; "added" is against the direct call)\n\n${latencyTable(whole, streamed)}\n\n`,
  );

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
      ...[...new Set(notes)],
    ].join('\n'),
  );
  out.write('\n');
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
