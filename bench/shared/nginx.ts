/**
 * nginx for the benches: the documented configuration (docs/deploy/nginx-platform.conf) with these
 * replicas and this port, run in the foreground from a folder of its own. Debian's package; the
 * benches skip what goes through nginx when there is none.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export const NGINX = process.env.NGINX_PATH ?? ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/bin/nginx'].find((p) => existsSync(p));

/** docs/deploy/nginx-platform.conf with its upstream servers replaced by `replicas` and listening on `port`. */
export function documentedConfig(root: string, port: number, replicas: readonly number[]): string {
  const doc = readFileSync(join(root, 'docs', 'deploy', 'nginx-platform.conf'), 'utf8');
  const servers = replicas.map((p) => `    server 127.0.0.1:${p} max_fails=1 fail_timeout=5s;`).join('\n');
  const out = doc.replace(/( {4}server 127\.0\.0\.1:\d+ [^\n]*\n)+/, `${servers}\n`).replace('listen 8080;', `listen 127.0.0.1:${port};`);
  if (out === doc) throw new Error('docs/deploy/nginx-platform.conf no longer has the shape this bench edits');
  return out;
}

const portOpen = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });

export interface Nginx {
  url: string;
  pid: number | undefined;
  /** Its error log and output. */
  errors(): string;
  stop(): Promise<void>;
}

/** nginx (`workers` worker processes) in front of `replicas`, as the documentation configures it. */
export async function startNginx(root: string, port: number, replicas: readonly number[], workers = 1): Promise<Nginx> {
  if (!NGINX) throw new Error('nginx not found (set NGINX_PATH)');
  const dir = mkdtempSync(join(tmpdir(), 'platform-nginx-'));
  mkdirSync(join(dir, 'logs'));
  const user = process.getuid?.() === 0 ? 'user root;\n' : '';
  writeFileSync(
    join(dir, 'nginx.conf'),
    `${user}worker_processes ${workers};
pid ${dir}/nginx.pid;
error_log ${dir}/logs/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
${documentedConfig(root, port, replicas)}
}
`,
  );
  const child: ChildProcess = spawn(NGINX, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-g', 'daemon off;'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const errors = () => (existsSync(join(dir, 'logs', 'error.log')) ? readFileSync(join(dir, 'logs', 'error.log'), 'utf8') : '') + out;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGQUIT');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  for (let i = 0; !(await portOpen(port)); i++) {
    if (child.exitCode !== null || i > 100) {
      const why = errors();
      await stop();
      throw new Error(`nginx did not start: ${why}`);
    }
    await sleep(50);
  }
  return { url: `http://127.0.0.1:${port}`, pid: child.pid, errors, stop };
}
