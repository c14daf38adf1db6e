import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
/** Debian's nginx (`apt-get install nginx`; .ci/run installs it); the tests through it are skipped without one. */
export const NGINX = process.env.NGINX_PATH ?? ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/bin/nginx'].find((p) => existsSync(p));
export const describeNginx: jest.Describe = NGINX ? describe : describe.skip;

/** The documented configuration (docs/deploy/nginx-platform.conf), with these replicas and this port. */
export function documentedConfig(port: number, replicas: readonly number[]): string {
  const doc = readFileSync(join(ROOT, 'docs', 'deploy', 'nginx-platform.conf'), 'utf8');
  const servers = replicas.map((p) => `    server 127.0.0.1:${p} max_fails=1 fail_timeout=5s;`).join('\n');
  const out = doc
    .replace(/(    server 127\.0\.0\.1:\d+ [^\n]*\n)+/, `${servers}\n`)
    .replace('listen 8080;', `listen 127.0.0.1:${port};`);
  if (out === doc) throw new Error('docs/deploy/nginx-platform.conf no longer has the shape this test edits');
  return out;
}

const portOpen = (port: number) => new Promise<boolean>((resolve) => {
  const s = connect(port, '127.0.0.1');
  s.once('connect', () => (s.destroy(), resolve(true)));
  s.once('error', () => resolve(false));
});

/** nginx in the foreground with the documented configuration, in a folder of its own. */
export async function startNginx(port: number, replicas: readonly number[]) {
  const dir = mkdtempSync(join(tmpdir(), 'platform-nginx-'));
  mkdirSync(join(dir, 'logs'));
  const root = process.getuid?.() === 0 ? 'user root;\n' : '';
  writeFileSync(join(dir, 'nginx.conf'), `${root}worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/logs/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
${documentedConfig(port, replicas)}
}
`);
  const child: ChildProcess = spawn(NGINX!, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-g', 'daemon off;'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  for (let i = 0; i < 100 && !(await portOpen(port)); i++) {
    if (child.exitCode !== null) throw new Error(`nginx exited: ${out}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url: `http://127.0.0.1:${port}`,
    errors: () => (existsSync(join(dir, 'logs', 'error.log')) ? readFileSync(join(dir, 'logs', 'error.log'), 'utf8') : '') + out,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGQUIT');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
