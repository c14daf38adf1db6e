import { spawn } from 'node:child_process';
import { FIRST_START_FIELDS } from './first-start-fields';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bootstrapPath } from '../../../services/shared/cli';
import { startPlatformProcess, stopProcess } from './processes';
import { childEnv, freePort, ROOT } from './server';

const npmStart = (env: Record<string, string>) => startPlatformProcess(['start'], env);
const stop = stopProcess;

/** The first start's credentials, and later starts (the README's tours run in test/e2e/docs/pages.test.ts). */
describe('the first start, on a server started the way npm start starts it', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'platform-tour-'));
  let env: Record<string, string>;
  let server: Awaited<ReturnType<typeof npmStart>>;

  beforeAll(async () => {
    env = { PORT: String(await freePort()), PLATFORM_DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
    server = await npmStart(env);
  }, 120_000);
  afterAll(async () => {
    if (server.child.exitCode === null) await stop(server.child);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps the credentials it created in an owner-only bootstrap.json and, its output not a terminal (a log), never prints them', () => {
    const file = bootstrapPath(dataDir);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    const creds = JSON.parse(readFileSync(file, 'utf8'));
    expect(Object.keys(creds).sort()).toEqual(FIRST_START_FIELDS);
    expect(server.output()).toContain('First start');
    expect(server.output()).toContain(file);
    expect(server.output()).toContain(`npm run -s platform -- credentials --data-dir ${dataDir}`);
    expect(server.output()).not.toContain(creds.client_secret);
    expect(server.output()).not.toContain(creds.password);
    expect(server.output()).not.toContain(creds.api_key);
    expect(server.output()).not.toContain(creds.admin_password);
    expect(server.output()).toContain(`${server.url}/graphql`);
  });

  it('stops cleanly on SIGTERM and, started again, reuses the data without printing secrets', async () => {
    expect(await stop(server.child)).toBe(0);
    const creds = JSON.parse(readFileSync(bootstrapPath(dataDir), 'utf8'));
    server = await npmStart(env);
    expect(server.output()).not.toContain('First start');
    expect(server.output()).not.toContain(creds.client_secret);
    expect(server.output()).toContain(`credentials: ${bootstrapPath(dataDir)}`);
    expect(JSON.parse(readFileSync(bootstrapPath(dataDir), 'utf8'))).toEqual(creds);
  }, 120_000);
});

describe('the first start at a terminal', () => {
  it('shows the credentials once to a person at a terminal (a pseudo-terminal made by script(1))', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'platform-tty-'));
    const port = String(await freePort());
    const cmd = `${process.execPath} ${join(ROOT, 'dist', 'bin', 'platform.js')} start`;
    const child = spawn('script', ['-qec', cmd, '/dev/null'], {
      cwd: ROOT,
      env: childEnv({ PORT: port, PLATFORM_DATA_DIR: dataDir, WORKERS: '1', LOG_LEVEL: 'warn' }),
    });
    let out = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no start within 60 s:\n${out}`)), 60_000);
      child.stdout.on('data', (d) => {
        out += d;
        if (out.includes('Ready.')) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    const creds = JSON.parse(readFileSync(bootstrapPath(dataDir), 'utf8'));
    expect(out).toContain(creds.client_secret);
    expect(out).toContain(creds.password);
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
  });
});

describe('a data directory readable by others', () => {
  it('is tightened to 0700 at start, and the start says so', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'platform-loose-'));
    chmodSync(dataDir, 0o755);
    const server = await npmStart({ PORT: String(await freePort()), PLATFORM_DATA_DIR: dataDir, WORKERS: '1', LOG_LEVEL: 'warn' });
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    expect(server.output()).toContain(`data directory permissions tightened: ${dataDir}: 0755 -> 0700`);
    await stop(server.child);
    rmSync(dataDir, { recursive: true, force: true });
  });
});
