import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { childEnv, freePort, ROOT } from './server';
import { eventually } from '../../shared/wait';

const workersOf = (pid: number) => {
  try {
    return execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
};

/** `platform start` with WORKERS=2: two processes on one port, sharing what must be shared. */
describe('platform start with two worker processes', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'platform-workers-'));
  let child: ChildProcessWithoutNullStreams;
  let url: string;
  let out = '';

  beforeAll(async () => {
    const port = String(await freePort());
    child = spawn(process.execPath, [join(ROOT, 'dist', 'bin', 'platform.js'), 'start'], {
      cwd: ROOT,
      env: childEnv({
        PORT: port,
        PLATFORM_DATA_DIR: dataDir,
        WORKERS: '2',
        AUTH_FAILURES_PER_MINUTE: '3',
        LOCKOUT_THRESHOLD: '2',
        TRUST_PROXY: 'loopback',
        LOG_LEVEL: 'warn',
        // Heartbeats every second: a worker that dies shows as gone after three.
        HEARTBEAT_SECONDS: '1',
      }),
    });
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    // Up to 90 s: three processes start on a machine the rest of the suite keeps busy.
    for (let i = 0; i < 900 && !out.includes('Ready.'); i++) await sleep(100);
    url = `http://127.0.0.1:${port}`;
  }, 120_000);
  afterAll(() => {
    // SIGTERM: the primary stops its workers too (SIGKILL would leave them running).
    if (child.exitCode === null) child.kill('SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
  });

  // A new connection each time, so the primary hands them to both workers.
  const token = (form: Record<string, string>) =>
    fetch(`${url}/auth/api/v1/oauth/connect/token`, { method: 'POST', headers: { connection: 'close' }, body: new URLSearchParams(form) });

  it('says it runs two workers, and both serve', async () => {
    expect(out).toContain('(2 worker processes)');
    expect(workersOf(child.pid!)).toHaveLength(2);
    const boot = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')) as Record<string, string>;
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => token({ client_id: boot.client_id, client_secret: boot.client_secret })),
    );
    expect(answers.map((r) => r.status)).toEqual(Array(10).fill(200));
  });

  it('shares the failed-authentication throttle between workers', async () => {
    const boot = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')) as Record<string, string>;
    for (let i = 0; i < 3; i++) expect((await token({ client_id: boot.client_id, client_secret: 'wrong' })).status).toBe(401);
    for (let i = 0; i < 4; i++) expect((await token({ client_id: boot.client_id, client_secret: 'wrong' })).status).toBe(429);
  });

  it("shares an address's lockout on an account between workers; another address still signs in", async () => {
    const boot = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')) as Record<string, string>;
    const login = (from: string, password: string) =>
      fetch(`${url}/auth/api/v1/oauth/connect/user/login`, {
        method: 'POST',
        headers: { connection: 'close', 'x-forwarded-for': from },
        body: new URLSearchParams({ username: boot.username, password }),
      }).then((r) => r.status);
    for (let i = 0; i < 2; i++) expect(await login('198.51.100.9', `wrong ${i}`)).toBe(401);
    expect(await login('198.51.100.9', boot.password)).toBe(401);
    expect(await login('198.51.100.10', boot.password)).toBe(200);
  });

  /** The overview's replicas (platformStatus, docs/observability.md), as the platform administrator reads them from either worker. */
  const replicas = async () => {
    const boot = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')) as Record<string, string>;
    const signed = await fetch(`${url}/auth/api/v1/oauth/connect/user/login`, {
      method: 'POST',
      // From an address of its own: the tests above made 127.0.0.1's failures hit the throttle.
      headers: { 'content-type': 'application/json', connection: 'close', 'x-forwarded-for': '198.51.100.77' },
      body: JSON.stringify({ realm: boot.realm, username: boot.admin_username, password: boot.admin_password }),
    });
    const { access_token } = (await signed.json()) as { access_token: string };
    const res = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${access_token}`, connection: 'close' },
      body: JSON.stringify({ query: '{ platformStatus { replicas { pid worker live serves } } }' }),
    });
    return (
      (await res.json()) as { data: { platformStatus: { replicas: { pid: number; worker: number; live: boolean; serves: string[] }[] } } }
    ).data.platformStatus.replicas;
  };

  it('lists both workers as live replicas in the overview, whichever of them answers', async () => {
    const pids = workersOf(child.pid!).sort();
    for (let i = 0; i < 4; i++) {
      const seen = await replicas();
      expect(seen.map((r) => r.pid).sort()).toEqual(pids);
      expect(seen.map((r) => r.worker).sort()).toEqual([1, 2]);
      expect(seen.every((r) => r.live && r.serves.includes('gateway'))).toBe(true);
    }
  });

  it('replaces a worker that dies, and stops every process on SIGTERM', async () => {
    const [victim] = workersOf(child.pid!);
    process.kill(victim, 'SIGKILL');
    // One snapshot a look: the victim may be reaped between two calls.
    let now = workersOf(child.pid!);
    for (let i = 0; i < 200 && !(now.length === 2 && !now.includes(victim)); i++) {
      await sleep(100);
      now = workersOf(child.pid!);
    }
    expect(now).toHaveLength(2);
    expect(now).not.toContain(victim);
    expect(out).toContain('exited (SIGKILL); starting a new one');
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    // The dead worker stays in the overview, gone once three of its heartbeats are missed; its replacement is live.
    await eventually(async () => {
      const seen = await replicas();
      return seen.find((r) => r.pid === victim)?.live === false && now.every((pid) => seen.find((r) => r.pid === pid)?.live);
    }, 60_000);

    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    for (const pid of now) expect(() => process.kill(pid, 0)).toThrow();
  });
});
