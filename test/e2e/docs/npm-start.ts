import { spawn } from 'node:child_process';
import { childEnv } from '../shared/server';
import { processGroup } from './project-copy';

export interface NpmStarted {
  url: string;
  output: () => string;
  /** SIGTERM to npm, as `kill %1` from a script would; resolves with npm's exit code once it is gone. */
  stop(): Promise<number | null>;
  /** What of it was still running when npm had exited (then killed): nothing, when it stops as it should. */
  left: { pid: number; cmd: string }[];
}

/**
 * `npm start` in `dir` (a copy of the project), as the README starts it, with `env` added (PORT);
 * METRICS_PORT left unset as in a newcomer's shell. Resolves once it says it is ready.
 */
export function npmStart(dir: string, env: Record<string, string>, timeoutMs = 90_000): Promise<NpmStarted> {
  const full = childEnv({ npm_config_loglevel: 'error', LOG_LEVEL: 'warn', ...env });
  if (!env.METRICS_PORT) delete full.METRICS_PORT;
  const child = spawn('npm', ['start'], { cwd: dir, env: full, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const left: { pid: number; cmd: string }[] = [];
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const code = await exited;
    // Nothing of it may outlive npm; were something left, it is stopped here (and the stop test says so).
    for (const p of processGroup(child.pid!)) {
      left.push(p);
      process.kill(p.pid, 'SIGKILL');
    }
    return code;
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`npm start: not ready within ${timeoutMs / 1000} s:\n${out}`));
    }, timeoutMs);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`npm start exited ${code}:\n${out}`));
    });
    child.stdout.on('data', function ready() {
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (!m || !out.includes('Ready.')) return;
      child.stdout.off('data', ready);
      clearTimeout(timer);
      resolve({ url: m[1], output: () => out, stop, left });
    });
  });
}
