import cluster, { type Worker } from 'node:cluster';
import { streamHubBroker } from '../gateway/stream-hub/ipc';
import { poolBroker } from './shared-pools';

/**
 * `WORKERS` processes sharing one port (node:cluster; the primary hands out connections). The
 * primary does the one-time work first (bootstrap), then forks; it restarts a worker that dies
 * after start-up, and on SIGTERM/SIGINT stops them all. A worker that dies before it is ready
 * stops the whole start, so a bad configuration does not loop.
 */
export interface WorkerMessage {
  ready?: { url: string };
}

export const workerId = (): number => Number(process.env.PLATFORM_WORKER_ID ?? '0');

/**
 * A worker's young generation: request handling allocates ~100 KB a call (express, HTTP, JSON), so
 * with V8's default semi-space a scavenge (a few ms) comes every hundred calls or so and lands in
 * the p99 of every route; a larger one makes them rarer. Set it yourself (NODE_OPTIONS or node's
 * own flags) to override.
 */
export const WORKER_SEMI_SPACE_MB = 64;

function workerExecArgv(): string[] {
  const given = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].some((a) => a.includes('--max-semi-space-size'));
  return given ? process.execArgv : [...process.execArgv, `--max-semi-space-size=${WORKER_SEMI_SPACE_MB}`];
}

/**
 * A worker that dies (a crash, SIGKILL) closes its IPC channel before the primary sees it exit; a
 * message sent in between (a hashing turn, an event stream's request, a metrics scrape) makes the
 * Worker emit 'error', which with no listener would end the primary and every other worker with it.
 * The message is lost with the worker; its 'exit' follows and cleans up after it.
 */
export function survivesClosedChannel(worker: Pick<Worker, 'on'>): void {
  worker.on('error', (err: NodeJS.ErrnoException) => {
    if (err?.code !== 'ERR_IPC_CHANNEL_CLOSED') process.stderr.write(`platform: a worker's IPC channel failed: ${err?.message ?? err}\n`);
  });
}

export function runPrimary(count: number, graceMs: number, onReady: (url: string) => void, onFatal: (why: string) => void): void {
  cluster.setupPrimary({ execArgv: workerExecArgv() });
  let ready = 0;
  let stopping = false;
  const pools = poolBroker();
  // The gateway's event streams, so that a client's requests meet on whichever worker they land.
  const streams = streamHubBroker();
  const fork = (id: number): Worker => {
    const worker = cluster.fork({ PLATFORM_WORKER_ID: String(id) });
    survivesClosedChannel(worker);
    pools.serve(worker);
    streams.serve(String(worker.id), worker);
    let isReady = false;
    worker.on('message', (msg: WorkerMessage) => {
      if (!msg?.ready || isReady) return;
      isReady = true;
      if (++ready === count) onReady(msg.ready.url);
    });
    worker.on('exit', (code, signal) => {
      if (stopping) return;
      if (!isReady && ready < count) return onFatal(`worker ${id} exited during start-up (${signal ?? `code ${code}`})`);
      process.stderr.write(`platform: worker ${id} exited (${signal ?? `code ${code}`}); starting a new one\n`);
      setTimeout(() => !stopping && fork(id), 1000).unref();
    });
    return worker;
  };
  for (let id = 1; id <= count; id++) fork(id);

  const stop = () => {
    if (stopping) return;
    stopping = true;
    const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => !!w && !w.isDead());
    let left = workers.length;
    if (left === 0) process.exit(0);
    // Workers drain for the grace period (SHUTDOWN_GRACE_SECONDS), then close their stores.
    const force = setTimeout(() => process.exit(1), graceMs + 10_000);
    force.unref();
    for (const w of workers) {
      w.once('exit', () => --left === 0 && process.exit(0));
      w.process.kill('SIGTERM');
    }
  };
  // Each signal may come twice (a terminal's Ctrl-C or `kill %1` reaches the whole process group, and npm
  // forwards it as well): the first stops, the others find it stopping.
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
