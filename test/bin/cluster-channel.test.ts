import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const fixture = join(__dirname, 'fixtures', 'primary-sends-to-dead-worker.js');
const clusterModule = join(__dirname, '..', '..', 'dist', 'bin', 'cluster.js');
const run = (guard: boolean) =>
  spawnSync(process.execPath, [fixture], {
    env: { ...process.env, GUARD: guard ? '1' : '0', CLUSTER_MODULE: clusterModule },
    encoding: 'utf8',
    timeout: 60_000,
  });

// A worker killed while the primary sends it a message (a hashing turn, an event stream's request)
// took the whole platform down: the Worker's 'error' (ERR_IPC_CHANNEL_CLOSED) had no listener.
it('a primary sending to a worker that just died outlives it', () => {
  const guarded = run(true);
  expect(guarded.stdout).toContain('primary alive');
  expect(guarded.status).toBe(0);
  expect(guarded.stderr).not.toMatch(/ERR_IPC_CHANNEL_CLOSED|Unhandled 'error'/);
});

it('without the guard, the same primary dies (what the guard prevents)', () => {
  const bare = run(false);
  expect(bare.status).not.toBe(0);
  expect(bare.stderr).toContain('ERR_IPC_CHANNEL_CLOSED');
});
