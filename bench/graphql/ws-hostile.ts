/**
 * `npm run bench:ws-hostile`: do hostile graphql-ws connection_inits stall everyone else? Starts the
 * platform (`platform start`, WORKERS=1) of each build given, one after the other in this run, and
 * for each measures /healthz latency idle, then while ROUNDS waves of CLIENTS sockets (100) arrive at
 * once, each from its own address (127.0.1.x, so the per-address cap does not hide the cost of an
 * init) and each sending one connection_init with a garbage token, in turn 900 KB, 5,000 levels
 * deep, or nothing more. Prints p50/p99/max of /healthz, what the sockets got (acknowledged, or closed
 * with which code) and how many were still open 1 s after their wave.
 * BEFORE_ROOT=<dir> adds the build in <dir> (e.g. the commit before a change: `git worktree add
 * /tmp/before <commit>`, a node_modules symlink, `npx tsc`), measured first; PLATFORM_ROOT=<dir>
 * names the build measured after it (default: this one).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { WebSocket } from 'ws';
import { treeCpuSeconds } from '../shared/cpu';
import { freePort, startChild, stopChild, waitHealthy } from '../shared/procs';

const CLIENTS = Number(process.env.CLIENTS ?? 100);
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const GARBAGE = '"authorization":"Bearer garbage.garbage.garbage"';
/** The three hostile inits, sent in turn: 900 KB, 5,000 levels deep, and a garbage token alone (each with the garbage token). */
const INITS = [
  `{"type":"connection_init","payload":{${GARBAGE},"pad":"${'x'.repeat(900_000)}"}}`,
  `{"type":"connection_init","payload":{${GARBAGE},"deep":${'['.repeat(5000)}${']'.repeat(5000)}}}`,
  `{"type":"connection_init","payload":{${GARBAGE}}}`,
];

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] : NaN;
};

/** /healthz answered one after another, every 10 ms, until `until` says stop (at least `min` samples). */
async function sampleHealth(url: string, until: () => boolean, min = 0): Promise<number[]> {
  const times: number[] = [];
  while (!until() || times.length < min) {
    const t0 = performance.now();
    await (await fetch(`${url}/healthz`)).arrayBuffer();
    times.push(performance.now() - t0);
    await sleep(10);
  }
  return times;
}

/** One hostile socket: what it got (`ack`, `close <code>`, `refused <status>`, `error`), and the socket when it is still open. */
function hostile(url: string, from: string, init: string): Promise<{ outcome: string; ws?: WebSocket }> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws', { localAddress: from });
    ws.on('unexpected-response', (_req, res) => resolve({ outcome: `refused ${res.statusCode}` }));
    ws.on('error', () => resolve({ outcome: 'error' }));
    ws.on('open', () => ws.send(init));
    ws.on('message', (m) => {
      if (JSON.parse(String(m)).type === 'connection_ack') resolve({ outcome: 'ack', ws });
    });
    ws.on('close', (code) => resolve({ outcome: `close ${code}` }));
  });
}

/** The attack (in a worker thread): ROUNDS waves; posts what the sockets got and how many stayed open. */
async function attack(url: string): Promise<{ outcomes: [string, number][]; stillOpen: number }> {
  const outcomes = new Map<string, number>();
  let stillOpen = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const got = await Promise.all(
      Array.from({ length: CLIENTS }, (_, i) => hostile(url, `127.0.1.${1 + (i % 250)}`, INITS[i % INITS.length])),
    );
    for (const g of got) outcomes.set(g.outcome, (outcomes.get(g.outcome) ?? 0) + 1);
    await sleep(1000);
    stillOpen += got.filter((g) => g.ws?.readyState === WebSocket.OPEN).length;
    for (const g of got) g.ws?.terminate();
  }
  return { outcomes: [...outcomes], stillOpen };
}

async function measure(name: string, root: string, dir: string) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = startChild(name, [join(root, 'dist', 'bin', 'platform.js'), 'start'], {
    env: {
      ...process.env,
      METRICS_PORT: '0',
      WORKERS: '1',
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      PORT: String(port),
      PLATFORM_DATA_DIR: join(dir, name),
    },
    cwd: root,
    logFile: join(dir, `${name}.log`),
  });
  try {
    await waitHealthy(`${url}/healthz`, child, 90_000);
    const idle = await sampleHealth(url, () => true, 200);
    let done = false;
    const cpu0 = treeCpuSeconds(child.proc.pid);
    const during = sampleHealth(url, () => done);
    const worker = new Worker(__filename, { workerData: { url } });
    const result = await new Promise<{ outcomes: [string, number][]; stillOpen: number }>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    done = true;
    const cpu1 = treeCpuSeconds(child.proc.pid);
    const busy = await during;
    await worker.terminate();
    const cpu =
      cpu0 !== undefined && cpu1 !== undefined
        ? `; server CPU ${(((cpu1 - cpu0) * 1000) / (ROUNDS * CLIENTS)).toFixed(2)} ms per hostile socket (with the /healthz probes)`
        : '';
    const seen = result.outcomes.map(([o, n]) => `${o}: ${n}`).join(', ');
    console.log(
      `${name}: /healthz idle p50 ${pct(idle, 50).toFixed(1)} ms, p99 ${pct(idle, 99).toFixed(1)} ms; ` +
        `during ${ROUNDS} x ${CLIENTS} hostile inits p50 ${pct(busy, 50).toFixed(1)} ms, p99 ${pct(busy, 99).toFixed(1)} ms, max ${Math.max(...busy).toFixed(1)} ms ` +
        `(${busy.length} samples); sockets: ${seen}; still open 1 s after their wave: ${result.stillOpen}${cpu}`,
    );
  } finally {
    await stopChild(child);
  }
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'bench-ws-hostile-'));
  const after = process.env.PLATFORM_ROOT ?? join(__dirname, '..', '..', '..');
  try {
    if (process.env.BEFORE_ROOT) await measure('before', process.env.BEFORE_ROOT, dir);
    await measure('after', after, dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (isMainThread) {
  main().catch((err) => {
    console.error(err);
    process.exitCode = 1;
  });
} else {
  void attack((workerData as { url: string }).url).then((r) => parentPort!.postMessage(r));
}
