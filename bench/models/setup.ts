/**
 * What `npm run bench:models` and `npm run bench:routing` start before measuring: the fake upstream,
 * the bare pass-through proxy in front of it, the three failing fakes, the platform (a catalog
 * with the bench model and the failover models) and Portkey, each its own process, on this machine.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DEFAULT_CATALOG } from '../../core/models/catalog/catalog';
import { startChild, type Child } from '../shared/procs';
import { freePorts, makeTempDir, ROOT, startPlatform, type Platform } from '../shared/platform';
import { failoverCatalogModels, FLEET_SIZE, type Fleet } from './failover';
import { installPortkey, startPortkey } from './peer';
import { BENCH_MODEL, ways, type Way } from './targets';

/** Starts `dist/bench/models/<script>.js`, which writes what it serves (JSON) to the file named by `fileVar`. */
async function startServing<T>(dir: string, script: string, fileVar: string, env: Record<string, string> = {}): Promise<T> {
  const file = join(dir, `${script}.json`);
  const child: Child = startChild(script, [join(ROOT, 'dist', 'bench', 'models', `${script}.js`)], {
    cwd: ROOT,
    env: { ...process.env, ...env, [fileVar]: file },
    logFile: join(dir, `${script}.log`),
  });
  for (let i = 0; i < 100 && !existsSync(file); i++) await sleep(100);
  if (!existsSync(file)) throw new Error(`${script} did not start:\n${child.output()}`);
  return JSON.parse(readFileSync(file, 'utf8')) as T;
}

export interface Bench {
  platform: Platform;
  portkey: { child: Child; url: string };
  fleet: Fleet;
  routes: ReturnType<typeof ways>;
  upstream: string;
}

export async function startBench(log: (s: string) => void): Promise<Bench> {
  const dir = makeTempDir('models-bench-');
  const pkg = installPortkey(log);
  const [platformPort, portkeyPort] = (await freePorts(2)) as [number, number];
  const { url: upstream } = await startServing<{ url: string }>(dir, 'upstream', 'BENCH_UPSTREAM_FILE');
  const { url: bare } = await startServing<{ url: string }>(dir, 'bare-proxy', 'BENCH_PROXY_FILE', { BENCH_PROXY_TARGET: upstream });
  const fleet = await startServing<Fleet>(dir, 'fleet', 'BENCH_FLEET_FILE', { BENCH_FLEET_SIZE: String(FLEET_SIZE) });
  const catalog = join(dir, 'catalog.json');
  writeFileSync(
    catalog,
    JSON.stringify({
      models: [
        ...DEFAULT_CATALOG.models,
        {
          id: BENCH_MODEL,
          group: 'A',
          kind: 'chat',
          contextLength: 8192,
          upstream: { provider: 'openai-compatible', baseUrl: `${upstream}/v1`, model: 'bench-model' },
        },
        ...failoverCatalogModels(fleet),
      ],
    }),
  );
  process.env.MODELS_CATALOG_FILE = catalog;
  const platform = await startPlatform(dir, platformPort);
  const portkey = await startPortkey(pkg, portkeyPort, join(dir, 'portkey.log'));
  const routes = ways({ upstream, bare, gateway: platform.url, portkey: portkey.url, apiKey: platform.boot.api_key! });
  return { platform, portkey, fleet, routes, upstream };
}

export type { Way };
