import { connect } from 'node:net';
import { projectCopy, processesIn } from './project-copy';
import { freePort, run } from '../shared/server';

jest.setTimeout(120_000);

const portOpen = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });

/** Polls until `check` holds, or `timeoutMs` passes: whether it held. */
async function within(timeoutMs: number, check: () => boolean | Promise<boolean>): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > until) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * The README starts the platform with `npm start` (in the background: `npm start &`) and stops it
 * with `kill %1`: npm then gets SIGTERM alone (a script, no job control), or with the whole job
 * (an interactive shell). Either way the platform must stop: its port free, no process left.
 */
describe('npm start in the background, stopped with kill %1', () => {
  // Each in a copy of its own, on a port of its own: side by side.
  it.concurrent.each([
    ['from a script (npm alone gets the signal)', ''],
    ['from an interactive shell (job control: the whole job gets it)', 'set -m'],
  ])('%s: the port is free and no process is left', async (_name, mode) => {
    const copy = projectCopy('platform-stop-');
    const port = await freePort();
    try {
      const script = `cd ${copy.dir}
${mode}
unset METRICS_PORT
npm start > start.log 2>&1 &
for i in $(seq 600); do grep -q 'Ready.' start.log && break; kill -0 %1 2>/dev/null || { cat start.log; exit 3; }; sleep 0.2; done
kill %1
wait %1
echo "npm exited $?"`;
      // As the README runs it: PORT for the port, nothing else set (METRICS_PORT unset: a taken default only warns).
      const ran = await run('bash', ['-c', script], { env: { PORT: String(port) } });
      expect(ran.stdout).toContain('npm exited');
      expect(await within(20_000, async () => !(await portOpen(port)))).toBe(true);
      expect(await within(20_000, () => processesIn(copy.dir).length === 0)).toBe(true);
    } finally {
      for (const p of processesIn(copy.dir)) process.kill(p.pid, 'SIGKILL');
      copy.remove();
    }
  });
});
