import { connect, type Socket } from 'node:net';
import { freePort, startInTemp } from './server';
import { startPlatformProcess } from './processes';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DATABASE_URL, freshDatabase } from '../../shared/postgres';

const REDIS_URL = process.env.REDIS_URL;
import { eventually } from '../../shared/wait';

/**
 * A raw HTTP request whose body is still being sent: in flight until `finish`. It asks for a 100
 * Continue, which Node's server sends once it has the request's head: `inFlight` resolves then.
 */
function slowRequest(port: number) {
  const body = 'grant_type=client_credentials&client_id=nobody&client_secret=wrong';
  const socket: Socket = connect(port, '127.0.0.1');
  let head = '';
  let answer = '';
  let continued!: () => void;
  const inFlight = new Promise<void>((resolve) => (continued = resolve));
  socket.on('data', (d) => {
    if (head.endsWith('\r\n\r\n')) return void (answer += String(d));
    head += String(d);
    const end = head.indexOf('\r\n\r\n');
    if (end < 0) return;
    // `HTTP/1.1 100 Continue`, then the answer (in the same packet, perhaps).
    answer = head.slice(end + 4);
    head = head.slice(0, end + 4);
    continued();
  });
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.write(
    `POST /auth/api/v1/oauth/connect/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\n\r\n${body.slice(0, 10)}`,
  );
  return {
    inFlight: async () => {
      await inFlight;
      expect(head).toMatch(/^HTTP\/1\.1 100 Continue\r\n/);
    },
    finish: () => socket.write(body.slice(10)),
    answer: async () => {
      await closed;
      return answer;
    },
    waitForAnswer: () =>
      new Promise<string>((resolve) => {
        const check = () => (answer.includes('\r\n\r\n{') ? resolve(answer) : setTimeout(check, 20));
        check();
      }),
  };
}

const refused = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(false);
    });
    s.once('error', () => resolve(true));
  });

describe('stopping drains what is in flight', () => {
  it('refuses new connections at once, lets a request in flight finish with its answer, then closes', async () => {
    const p = await startInTemp('all');
    try {
      const slow = slowRequest(p.port);
      await slow.inFlight();
      const closing = p.close(10_000);
      expect(await refused(p.port)).toBe(true);
      slow.finish();
      const answer = await slow.waitForAnswer();
      expect(answer).toMatch(/^HTTP\/1\.1 401/);
      expect(answer).toContain('invalid_client');
      await closing;
    } finally {
      await p.stop().catch(() => undefined);
    }
  });

  it('cuts what still runs after the grace period', async () => {
    const p = await startInTemp('all');
    try {
      const slow = slowRequest(p.port);
      await slow.inFlight();
      await p.close(300);
      // The connection was closed without an answer.
      expect(await slow.answer()).toBe('');
    } finally {
      await p.stop().catch(() => undefined);
    }
  });

  it('/readyz is ready on a started platform, and answers GET and HEAD only', async () => {
    const p = await startInTemp('all');
    try {
      // Search says when its in-memory indexes are warm (at once over an empty store).
      await eventually(async () => (await fetch(`${p.url}/readyz`)).status === 200);
      const res = await fetch(`${p.url}/readyz`);
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(await res.json()).toEqual({ status: 'ready', checks: { search: 'ready' } });
      expect((await fetch(`${p.url}/readyz`, { method: 'POST' })).status).toBe(405);
    } finally {
      await p.stop();
    }
  });

  it('SIGTERM: a process with a request in flight answers it, then exits 0', async () => {
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), 'platform-drain-'));
    const proc = await startPlatformProcess(['start'], {
      NODE_ENV: 'production',
      PORT: String(port),
      PLATFORM_DATA_DIR: dir,
      WORKERS: '1',
      SHUTDOWN_GRACE_SECONDS: '10',
    });
    try {
      const slow = slowRequest(port);
      await slow.inFlight();
      const exited = new Promise<number | null>((resolve) => proc.child.once('exit', (code) => resolve(code)));
      proc.child.kill('SIGTERM');
      // SIGTERM taken: the port refuses connections; the process waits for the request in flight.
      await eventually(() => refused(port));
      expect(proc.child.exitCode).toBeNull();
      slow.finish();
      // Answered before the process ended (its exit closes the connection).
      expect(await slow.answer()).toMatch(/^HTTP\/1\.1 401/);
      expect(await exited).toBe(0);
    } finally {
      if (proc.child.exitCode === null) proc.child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.each([
    ['on SQLite', false],
    // With both servers only (.ci/run sets them).
    ...(DATABASE_URL && REDIS_URL ? [['on PostgreSQL and Redis', true] as const] : []),
  ] as (readonly [string, boolean])[])(
    'SIGTERM to the primary of two workers %s: both drain and it exits 0 well before its forced exit',
    async (_where, shared) => {
      const port = await freePort();
      const dir = mkdtempSync(join(tmpdir(), 'platform-drain-'));
      const db = shared ? await freshDatabase() : undefined;
      // NODE_ENV as in production: jest's 'test' would hide Apollo's own signal handlers, which fought this drain.
      const env = {
        NODE_ENV: 'production',
        PORT: String(port),
        PLATFORM_DATA_DIR: dir,
        WORKERS: '2',
        SHUTDOWN_GRACE_SECONDS: '30',
        ...(db ? { DATABASE_URL: db.url, REDIS_URL: REDIS_URL!, REDIS_KEY_PREFIX: `test:drain:${port}:` } : {}),
      };
      const proc = await startPlatformProcess(['start'], env);
      try {
        const exited = new Promise<number | null>((resolve) => proc.child.once('exit', (code) => resolve(code)));
        proc.child.kill('SIGTERM');
        // A worker that hung in its close would be killed by the primary after the grace period plus 10 s, with exit code 1.
        expect(await exited).toBe(0);
      } finally {
        if (proc.child.exitCode === null) proc.child.kill('SIGKILL');
        rmSync(dir, { recursive: true, force: true });
        await db?.drop();
      }
    },
    60_000,
  );
});
