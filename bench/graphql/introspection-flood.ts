/**
 * `npm run bench:introspection`: does a flood of introspection stall everyone else? Starts the
 * platform (`platform start`, the gateway with every subgraph in process) and the search service
 * alone (`platform serve search`, its subgraph at /graphql), each with WORKERS=1, and for each
 * measures /healthz latency idle, then while 300 full introspections (getIntrospectionQuery with
 * every option GraphiQL sends; ONE_OF=1 adds `oneOf`) run 20 at a time. Prints p50/p99 of both, the flood's statuses and how many
 * distinct bodies it got, and the server's CPU time per introspection (from /proc, so independent
 * of how busy the rest of the machine is). One run each; the machine's load shows in the latencies.
 * PLATFORM_ROOT=<dir> runs another build of the platform (e.g. the commit before a change).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { getIntrospectionQuery } from 'graphql';
import { treeCpuSeconds } from '../shared/cpu';
import { freePort, startChild, stopAll, waitHealthy, type Child } from '../shared/procs';

const FLOOD = Number(process.env.FLOOD ?? 300);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 20);
const QUERY = getIntrospectionQuery({
  descriptions: true,
  specifiedByUrl: true,
  directiveIsRepeatable: true,
  schemaDescription: true,
  inputValueDeprecation: true,
  oneOf: process.env.ONE_OF === '1',
});

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] : NaN;
};

/** /healthz answered one after another, every 10 ms, until `until` says stop (at least `min` samples). */
async function sampleHealth(url: string, until: () => boolean, min = 0): Promise<number[]> {
  const times: number[] = [];
  while (!until() || times.length < min) {
    const t0 = performance.now();
    const res = await fetch(`${url}/healthz`);
    await res.arrayBuffer();
    times.push(performance.now() - t0);
    await sleep(10);
  }
  return times;
}

async function flood(url: string): Promise<{ statuses: Map<number, number>; bodies: Set<string>; ms: number }> {
  const statuses = new Map<number, number>();
  const bodies = new Set<string>();
  let next = 0;
  const t0 = performance.now();
  const worker = async () => {
    while (next < FLOOD) {
      next++;
      const res = await fetch(`${url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: QUERY }),
      });
      bodies.add(await res.text());
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return { statuses, bodies, ms: performance.now() - t0 };
}

async function measure(name: string, url: string, server: Child) {
  const idle = await sampleHealth(url, () => true, 200);
  let done = false;
  const cpu0 = treeCpuSeconds(server.proc.pid);
  const during = sampleHealth(url, () => done);
  const result = await flood(url);
  done = true;
  const cpu1 = treeCpuSeconds(server.proc.pid);
  const busy = await during;
  const cpuMs =
    cpu0 !== undefined && cpu1 !== undefined ? `, server CPU ${(((cpu1 - cpu0) * 1000) / FLOOD).toFixed(1)} ms per introspection` : '';
  const codes = [...result.statuses].map(([s, n]) => `${s}:${n}`).join(' ');
  console.log(
    `${name}: /healthz idle p50 ${pct(idle, 50).toFixed(1)} ms, p99 ${pct(idle, 99).toFixed(1)} ms (${idle.length} samples); ` +
      `during the flood p50 ${pct(busy, 50).toFixed(1)} ms, p99 ${pct(busy, 99).toFixed(1)} ms, max ${Math.max(...busy).toFixed(1)} ms (${busy.length} samples); ` +
      `flood ${FLOOD} at ${CONCURRENCY} in ${(result.ms / 1000).toFixed(2)} s, statuses ${codes}, ${result.bodies.size} distinct bodies${cpuMs}`,
  );
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'bench-introspection-'));
  const root = process.env.PLATFORM_ROOT ?? join(__dirname, '..', '..', '..');
  const platform = join(root, 'dist', 'bin', 'platform.js');
  const [allPort, searchPort] = [await freePort(), await freePort()];
  const env = { ...process.env, METRICS_PORT: '0', WORKERS: '1', LOG_LEVEL: 'warn', HOST: '127.0.0.1', PLATFORM_DATA_DIR: dir };
  try {
    const all = startChild('platform', [platform, 'start'], {
      env: { ...env, PORT: String(allPort) },
      cwd: root,
      logFile: join(dir, 'all.log'),
    });
    const allUrl = `http://127.0.0.1:${allPort}`;
    await waitHealthy(`${allUrl}/healthz`, all, 60_000);
    await measure('gateway (platform start)', allUrl, all);
    const search = startChild('search', [platform, 'serve', 'search'], {
      env: { ...env, PORT: String(searchPort), AUTH_ISSUER_URL: allUrl, PUBLIC_URL: '' },
      cwd: root,
      logFile: join(dir, 'search.log'),
    });
    const searchUrl = `http://127.0.0.1:${searchPort}`;
    await waitHealthy(`${searchUrl}/healthz`, search, 60_000);
    await measure('search subgraph alone (platform serve search)', searchUrl, search);
  } finally {
    await stopAll();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
