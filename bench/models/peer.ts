/**
 * The peer for `npm run bench:models`: the Portkey open-source AI gateway (npm
 * `@portkey-ai/gateway`), installed into a temporary folder (kept between runs) and run as its own
 * server, pointed at the same fake upstream through its `x-portkey-custom-host` header.
 */
import { join } from 'node:path';
import { startChild, waitHealthy, type Child } from '../shared/procs';
import { installTempPackages } from '../shared/temp-packages';

export const PORTKEY_VERSION = '1.15.2';

/** The package's folder, installing it first when this machine has no copy yet. */
export function installPortkey(log: (s: string) => void): string {
  const modules = installTempPackages(
    `platform-bench-portkey-${PORTKEY_VERSION}`,
    { '@portkey-ai/gateway': PORTKEY_VERSION },
    log,
    '@portkey-ai/gateway/build/start-server.js',
  );
  return join(modules, '@portkey-ai', 'gateway');
}

export async function startPortkey(pkg: string, port: number, logFile: string): Promise<{ child: Child; url: string }> {
  const child = startChild('portkey', [join(pkg, 'build', 'start-server.js'), `--port=${port}`, '--headless'], {
    cwd: pkg,
    env: { ...process.env, NODE_ENV: 'production' },
    logFile,
  });
  const url = `http://127.0.0.1:${port}`;
  await waitHealthy(`${url}/`, child, 60_000);
  return { child, url };
}

/** Portkey's headers for an OpenAI-compatible upstream at `upstreamV1` (…/v1). */
export const portkeyHeaders = (upstreamV1: string) => ({
  'content-type': 'application/json',
  authorization: 'Bearer sk-bench',
  'x-portkey-provider': 'openai',
  'x-portkey-custom-host': upstreamV1,
});
