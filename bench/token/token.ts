/**
 * `npm run bench`: the token service next to a bare express baseline and a peer project
 * (node-oidc-provider issuing the same kind of token), all measured in this run on this machine,
 * each server in its own process and alone on the machine while it is measured. Order: baseline;
 * platform COLD (loaded the moment /healthz answers, no warm-up); platform warm token issue and
 * introspection; peer. Needs `npm run build` first.
 *
 * Env: BENCH_SECONDS (10) per measured run, BENCH_COLD_SECONDS (8), BENCH_CONNECTIONS (50),
 * BENCH_WARMUP_SECONDS (2, discarded); WORKERS and LOG_LEVEL pass through to the platform.
 * Exits non-zero when anything fails, including any non-2xx response during a run; the targets
 * are reported but do not change the exit code.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { rs256SignatureMs, treeCpuSeconds } from '../shared/cpu';
import { load, stopLoad, verify, type Measured, type Target } from '../shared/load';
import { checkPeerToken, peerTarget, startPeer } from './peer';
import { alive, freePort, killAllSync, startChild, stopAll, stopChild, waitHealthy, type Child } from '../shared/procs';
import { problems, table, targetsBlock } from '../shared/report';
import { header, loadAverage, settings } from '../shared/settings';
import { baselineTarget, describeJwt, introspectTarget, issue, tokenTarget, type Bootstrap } from './targets';

const ROOT = resolve(__dirname, '..', '..', '..');
const PLATFORM_JS = join('dist', 'bin', 'platform.js');
const BASELINE_JS = join(__dirname, 'baseline.js');

/** Holds the platform's data dir and the children's logs; removed at the end. */
let tempDir: string | undefined;
const removeTempDir = () => {
  if (tempDir) rmSync(tempDir, { recursive: true, force: true });
  tempDir = undefined;
};

async function main(): Promise<number> {
  const loadBefore = loadAverage();
  const s = settings();
  const { seconds, coldSeconds, connections, warmup } = s;
  if (!existsSync(join(ROOT, PLATFORM_JS))) throw new Error(`${PLATFORM_JS} is missing: run 'npm run build' first`);

  const dir = (tempDir = mkdtempSync(join(tmpdir(), 'platform-bench-')));
  const dataDir = join(dir, 'data');
  mkdirSync(dataDir);
  const ports = new Set<number>();
  while (ports.size < 3) ports.add(await freePort());
  const [baselinePort, platformPort, peerPort] = [...ports] as [number, number, number];
  const baselineUrl = `http://127.0.0.1:${baselinePort}`;
  const platformUrl = `http://127.0.0.1:${platformPort}`;
  const env = { ...process.env, HOST: '127.0.0.1', PUBLIC_URL: '', SUBGRAPH_TOKEN_URL: '' };

  const out = process.stdout;
  out.write(`${header(s, loadBefore)}\n\n`);

  const rows: Measured[] = [];
  const failures: string[] = [];
  const record = (m: Measured) => {
    rows.push(m);
    const bad = problems(m);
    if (bad) failures.push(bad);
    out.write(`  ${m.requests} responses, status codes ${m.codes || 'none'}, ${m.errors} connection errors\n`);
    return m;
  };
  /** A load run with the CPU its server used per response. */
  const run = async (target: Target, secs: number, server: Child) => {
    const before = treeCpuSeconds(server.proc.pid);
    const m = await load(target, secs, connections);
    const after = treeCpuSeconds(server.proc.pid);
    if (before !== undefined && after !== undefined && m.requests > 0) m.cpuMs = ((after - before) * 1000) / m.requests;
    return m;
  };
  /** Checked request, warm-up, checked request, measured run. */
  const measure = async (target: Target, server: Child) => {
    await verify(target);
    if (warmup > 0) {
      const bad = problems(await load(target, warmup, connections));
      if (bad) failures.push(`warm-up ${bad}`);
    }
    await verify(target);
    out.write(`running ${target.name} (${seconds} s)...\n`);
    return record(await run(target, seconds, server));
  };
  /** A child that died under load is a failure; one still running is stopped before the next. */
  const done = async (child: Child) => {
    if (!alive(child)) await sleep(500); // a child killed mid-run may not have been reaped yet
    if (!alive(child)) failures.push(`${child.name} exited (${await child.exited}) during the bench; its last output:\n${child.output()}`);
    else await stopChild(child);
  };
  const key: { cold?: Measured; warm?: Measured; peer?: Measured } = {}; // what the targets compare
  const started: Child[] = [];
  try {
    const baseline = startChild('baseline', [BASELINE_JS], {
      cwd: ROOT,
      env: { ...env, PORT: String(baselinePort) },
      logFile: join(dir, 'baseline.log'),
    });
    started.push(baseline);
    await waitHealthy(`${baselineUrl}/`, baseline);
    await measure(baselineTarget(baselineUrl), baseline);
    await done(started.pop()!);

    // Cold: the first seconds a freshly started platform serves, as a restart or scale-out sees them.
    const spawnedAt = Date.now();
    const platform = startChild('platform', [PLATFORM_JS, 'start'], {
      cwd: ROOT,
      env: { ...env, METRICS_PORT: '0', PORT: String(platformPort), PLATFORM_DATA_DIR: dataDir },
      logFile: join(dir, 'platform.log'),
    });
    started.push(platform);
    await waitHealthy(`${platformUrl}/healthz`, platform);
    const boot = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')) as Bootstrap;
    const coldTarget = { ...tokenTarget(platformUrl, boot), name: `platform COLD: token client credentials (first ${coldSeconds} s)` };
    out.write(`running ${coldTarget.name}, /healthz answered ${Date.now() - spawnedAt} ms after spawn...\n`);
    key.cold = record(await run(coldTarget, coldSeconds, platform));

    out.write(`platform access_token: ${describeJwt(await issue(platformUrl, boot)).text}\n`);
    key.warm = await measure(tokenTarget(platformUrl, boot), platform);
    await measure(await introspectTarget(platformUrl, boot), platform);
    await done(started.pop()!);

    const peer = await startPeer(ROOT, peerPort, env, join(dir, 'peer.log'));
    started.push(peer.child);
    out.write(`peer ${peer.name}: access_token via openid-client (discovery + client_credentials grant): ${await checkPeerToken(peer)}\n`);
    key.peer = await measure(peerTarget(peer), peer.child);
    await done(started.pop()!);
  } catch (err) {
    failures.push(`stopped early: ${(err as Error)?.message ?? String(err)}`);
    for (const child of started) await done(child);
  }

  out.write(`\n${table(rows, rows[0])}\n\n${targetsBlock(key.warm, key.cold, key.peer, rs256SignatureMs())}\n\n`);
  if (failures.length) {
    out.write(`FAILED (the figures above include these errors):\n${failures.map((f) => `  - ${f}`).join('\n')}\n`);
    return 1;
  }
  out.write('all runs clean: every response 2xx with the expected body, no connection errors\n');
  return 0;
}

let finishing = false;
async function finish(code: number): Promise<never> {
  if (!finishing) {
    finishing = true;
    stopLoad();
    await stopAll();
    removeTempDir();
  }
  process.exit(code);
}

process.on('exit', () => {
  killAllSync();
  removeTempDir();
});
process.once('SIGINT', () => {
  process.stderr.write('\nbench: interrupted, cleaning up\n');
  void finish(130);
});
process.once('SIGTERM', () => void finish(143));

main().then(
  (code) => finish(code),
  (err: unknown) => {
    process.stderr.write(`bench: ${(err as Error)?.stack ?? String(err)}\n`);
    return finish(1);
  },
);
