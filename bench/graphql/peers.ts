/**
 * The peers of `npm run bench:graphql`, each its own process over the same remote subgraphs:
 * Hive Gateway (npm `@graphql-hive/gateway`, installed into a temporary folder kept between runs,
 * its CLI serving the supergraph file with the caller's credentials propagated) and a plain
 * `@apollo/gateway` set up as its documentation shows (bench/graphql/apollo-peer.ts).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { alive, startChild, waitHealthy, type Child } from '../shared/procs';
import { setTimeout as sleep } from 'node:timers/promises';
import { ROOT } from '../shared/platform';
import { installTempPackages } from '../shared/temp-packages';

/** The newest release whose `engines` allow Node 20 (>=20.0.0). */
export const HIVE_VERSION = '2.15.1';

export interface Peer {
  name: string;
  child: Child;
  url: string;
}

/** The package's folder, installing it first when this machine has no copy yet. */
export function installHive(log: (s: string) => void): string {
  const modules = installTempPackages(
    `platform-bench-hive-gateway-${HIVE_VERSION}`,
    { '@graphql-hive/gateway': HIVE_VERSION },
    log,
    '@graphql-hive/gateway/dist/bin.js',
  );
  return join(modules, '@graphql-hive', 'gateway');
}

/** `hive-gateway supergraph <file>`: one process (--fork 1), credentials propagated to every subgraph, logs at error. */
export async function startHive(pkg: string, supergraphFile: string, port: number, dir: string): Promise<Peer> {
  const config = join(dir, 'hive-gateway.config.mjs');
  writeFileSync(
    config,
    [
      'export const gatewayConfig = {',
      '  logging: "error",',
      '  propagateHeaders: {',
      '    fromClientToSubgraphs: ({ request }) => ({',
      '      authorization: request.headers.get("authorization") ?? undefined,',
      '      "api-key": request.headers.get("api-key") ?? undefined,',
      '    }),',
      '  },',
      '};',
      '',
    ].join('\n'),
  );
  const child = startChild(
    'hive-gateway',
    [join(pkg, 'dist', 'bin.js'), 'supergraph', supergraphFile, '--fork', '1', '--host', '127.0.0.1', '--port', String(port), '-c', config],
    {
      cwd: dir,
      env: { ...process.env, NODE_ENV: 'production' },
      logFile: join(dir, 'hive-gateway.log'),
    },
  );
  const url = `http://127.0.0.1:${port}`;
  await waitHealthy(`${url}/healthcheck`, child, 60_000);
  return { name: `Hive Gateway ${HIVE_VERSION}`, child, url };
}

export async function startApolloPeer(supergraphFile: string, port: number, dir: string): Promise<Peer> {
  const version = (
    JSON.parse(readFileSync(join(ROOT, 'node_modules', '@apollo', 'gateway', 'package.json'), 'utf8')) as { version: string }
  ).version;
  const child = startChild('apollo-gateway', [join(ROOT, 'dist', 'bench', 'graphql', 'apollo-peer.js'), supergraphFile, String(port)], {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: 'production' },
    logFile: join(dir, 'apollo-gateway.log'),
  });
  const url = `http://127.0.0.1:${port}`;
  await waitGraph(url, child);
  return { name: `plain @apollo/gateway ${version}`, child, url };
}

/** Polls `{ __typename }` at the graph until it answers (Apollo Server 4+ has no health route). */
export async function waitGraph(url: string, child: Child, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!alive(child)) throw new Error(`${child.name} exited (${await child.exited}):\n${child.output()}`);
    const ok = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"query":"{ __typename }"}',
      signal: AbortSignal.timeout(2000),
    }).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) return;
    await sleep(100);
  }
  throw new Error(`${child.name}: ${url} did not answer { __typename } within ${timeoutMs} ms:\n${child.output()}`);
}
