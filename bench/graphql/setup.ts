/**
 * The deployments `npm run bench:graphql` measures, all over one data directory: the platform in
 * one process (`platform start`: every subgraph in process behind the gateway), the four services
 * each served alone (`platform serve <name>`) with our gateway alone in front of them (`platform
 * serve gateway`), and the peers over those same remote subgraphs. Every process runs WORKERS=1,
 * as the peers run one process each.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { placeholderUrl, readSupergraph } from '../../gateway/supergraph';
import { SERVICES } from '../../services/registry';
import { startChatPlatform, startUpstream, type ChatPlatform } from '../chat/setup';
import { installHive, startApolloPeer, startHive, waitGraph, type Peer } from './peers';
import { startChild, waitHealthy, type Child } from '../shared/procs';
import type { Doc } from '../shared/scifact';
import { freePorts, ROOT } from '../shared/platform';

export interface Deployments {
  /** `platform start`: REST and the gateway with every subgraph in process. */
  platform: ChatPlatform;
  /** Each service alone: its REST paths and its subgraph at /graphql. */
  alone: Record<string, { child: Child; url: string }>;
  /** `platform serve gateway` in front of `alone`. */
  gateway: Peer;
  peers: Peer[];
  supergraphFile: string;
}

/** A few documents to search and ground answers in. */
export const DOCS: Doc[] = [
  {
    id: 'd1',
    title: 'Aspirin',
    text: 'Aspirin reduces fever and relieves mild pain. Its common side effects are stomach upset and heartburn.',
  },
  { id: 'd2', title: 'Glaciers', text: 'Glaciers retreat as the climate warms. Their meltwater raises the sea level.' },
  { id: 'd3', title: 'Penguins', text: 'Emperor penguins breed during the Antarctic winter; the male keeps the egg warm on its feet.' },
  { id: 'd4', title: 'Volcanoes', text: 'A volcano erupts when pressure from magma builds beneath the crust.' },
];

const PLATFORM_JS = join('dist', 'bin', 'platform.js');

export async function startDeployments(dir: string, log: (s: string) => void): Promise<Deployments> {
  process.env.WORKERS = '1';
  const upstream = await startUpstream(dir);
  const [platformPort, gatewayPort, apolloPort, hivePort, ...servicePorts] = await freePorts(4 + SERVICES.length);
  log('starting the platform in one process ...\n');
  const platform = await startChatPlatform(dir, platformPort, upstream, DOCS, 4);
  // The parts apart share its data (tokens it issued verify against its JWKS, its documents, its key).
  const common = {
    ...process.env,
    METRICS_PORT: '0',
    HOST: '127.0.0.1',
    PUBLIC_URL: '',
    PLATFORM_DATA_DIR: platform.dataDir,
    AUTH_ISSUER_URL: platform.url,
    LOG_LEVEL: 'warn',
  };
  const alone: Deployments['alone'] = {};
  const urls = Object.fromEntries(SERVICES.map((m, i) => [m.name, `http://127.0.0.1:${servicePorts[i]}`]));
  log(`starting ${SERVICES.map((m) => m.name).join(', ')} each alone, and the gateway alone in front of them ...\n`);
  for (const m of SERVICES) {
    const env = { ...common, PORT: String(new URL(urls[m.name]).port), SEARCH_URL: urls.search, MODELS_URL: urls.models };
    const child = startChild(m.name, [PLATFORM_JS, 'serve', m.name], { cwd: ROOT, env, logFile: join(dir, `${m.name}.log`) });
    await waitHealthy(`${urls[m.name]}/healthz`, child, 60_000);
    alone[m.name] = { child, url: urls[m.name] };
  }
  const subgraphEnv = Object.fromEntries(SERVICES.map((m) => [`SUBGRAPH_${m.name.toUpperCase()}_URL`, `${urls[m.name]}/graphql`]));
  const gwChild = startChild('gateway', [PLATFORM_JS, 'serve', 'gateway'], {
    cwd: ROOT,
    env: { ...common, ...subgraphEnv, PORT: String(gatewayPort) },
    logFile: join(dir, 'gateway.log'),
  });
  const gateway = { name: 'our gateway, remote subgraphs', child: gwChild, url: `http://127.0.0.1:${gatewayPort}` };
  await waitHealthy(`${gateway.url}/healthz`, gwChild, 60_000);

  // The same supergraph for the peers, with the subgraphs' real URLs where ours has placeholders.
  let sdl = readSupergraph();
  for (const m of SERVICES) sdl = sdl.split(placeholderUrl(m.name)).join(`${urls[m.name]}/graphql`);
  const supergraphFile = join(dir, 'supergraph.graphql');
  writeFileSync(supergraphFile, sdl);
  log('starting the peers ...\n');
  const apollo = await startApolloPeer(supergraphFile, apolloPort, dir);
  const hive = await startHive(installHive(log), supergraphFile, hivePort, dir);
  await waitGraph(`${hive.url}/graphql`, hive.child);
  return { platform, alone, gateway, peers: [apollo, hive], supergraphFile };
}
