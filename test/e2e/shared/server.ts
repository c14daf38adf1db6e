import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { loadConfig, type Config } from '../../../core/shared/config';
import { startPlatform, type RunningPlatform } from '../../../bin/start';
import { configParts } from '../../../bin/deps';
import type { ServiceModule } from '../../../services/shared/module';
import { testModules } from '../../shared/helpers';
import { freePort } from '../../../bench/shared/ports';

/** A free port to start a platform on (the platform derives its issuer from PORT, so 0 won't do). */
export { freePort } from '../../../bench/shared/ports';

export interface Started extends RunningPlatform {
  config: Config;
  dataDir: string;
  stop(): Promise<void>;
}

/**
 * Starts the platform the way `npm start` does (one process), in a temporary data directory, with
 * the registry's services built with cheap crypto unless `modules` says otherwise.
 */
export async function startInTemp(
  role = 'all',
  env: Record<string, string> = {},
  modules: readonly ServiceModule[] = testModules(),
): Promise<Started> {
  const dataDir = mkdtempSync(join(tmpdir(), 'platform-test-'));
  const config = loadConfig(
    { PORT: String(await freePort()), PLATFORM_DATA_DIR: dataDir, LOG_LEVEL: 'silent', ...env },
    configParts(modules),
  );
  const running = await startPlatform(config, { role, modules, log: pino({ level: 'silent' }) });
  return {
    ...running,
    config,
    dataDir,
    async stop() {
      await running.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export const ROOT = join(__dirname, '..', '..', '..');

/**
 * The environment of a process a test starts: this one's, without the shared stores. DATABASE_URL
 * and REDIS_URL (set for the PostgreSQL and Redis suites) reach a started platform or command only
 * when the test passes them in `env`, so processes of different test files never meet in one
 * database or under one Redis prefix, and a command administers the same store as the server it
 * goes with.
 */
export function childEnv(env: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const { DATABASE_URL: _db, REDIS_URL: _redis, ...rest } = process.env;
  // Tests start many platforms on one host: none opens the metrics port or exports traces unless it says so.
  return { ...rest, METRICS_PORT: '0', OTEL_TRACES_EXPORTER: 'none', ...env };
}

export interface Ran {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command without blocking the event loop (servers under test answer from this process). */
export function run(cmd: string, args: string[], opts: { env?: Record<string, string>; input?: string } = {}): Promise<Ran> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: ROOT, env: childEnv({ npm_config_loglevel: 'error', ...opts.env }) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
    child.on('error', (err) => resolve({ status: null, stdout, stderr: `${stderr}${err.message}` }));
    // A command that exits before reading its input closes the pipe: EPIPE then says nothing its status does not.
    child.stdin.on('error', () => undefined);
    if (opts.input === undefined) child.stdin.end();
    else child.stdin.end(opts.input);
  });
}

/** The built `platform` command (npm test builds before jest runs). */
export const platformCli = (dataDir: string, args: string[], input?: string, env: Record<string, string> = {}) =>
  run(process.execPath, [join(ROOT, 'dist', 'bin', 'platform.js'), ...args], { env: { ...env, PLATFORM_DATA_DIR: dataDir }, input });
