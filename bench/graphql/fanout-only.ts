/**
 * `node dist/bench/graphql/fanout-only.js`: only the subscription fan-out of `npm run bench:graphql`
 * (bench/graphql/fanout.ts), through the platform in one process (`platform start`, WORKERS=1, every
 * subgraph in process) as that bench starts it: BENCH_ROUNDS (3) rounds of BENCH_SUBSCRIBERS (500)
 * streamed answers at once after that bench's warm-up (the same burst once, shown as round 0), each
 * round's first event and whole answer percentiles and the platform's CPU per answer. Exits 1 when
 * an answer failed.
 */
import { treeCpuSeconds } from '../shared/cpu';
import { intEnv } from '../shared/settings';
import { freePorts, makeTempDir, runBench } from '../shared/platform';
import { startChatPlatform, startUpstream } from '../chat/setup';
import { fanOut } from './fanout';
import { DOCS } from './setup';

async function main(): Promise<number> {
  const n = intEnv('BENCH_SUBSCRIBERS', 500, 1);
  const rounds = intEnv('BENCH_ROUNDS', 3, 1);
  process.env.WORKERS = '1';
  // One address for every client; a round's sockets may still be closing when the next connects.
  process.env.GRAPHQL_WS_MAX_SOCKETS_PER_ADDRESS = String(2 * n + 50);
  const dir = makeTempDir('platform-bench-fanout-');
  const upstream = await startUpstream(dir);
  const [port] = await freePorts(1);
  const p = await startChatPlatform(dir, port, upstream, DOCS, 4);
  const pid = p.child.proc.pid;
  const auth = async () => ({ authorization: (await p.tok.headers()).authorization, 'api-key': p.apiKey });
  const question = 'What are the side effects of aspirin?';
  let failed = 0;
  process.stdout.write(
    `| round | first event p50 ms | p99 ms | whole answer p50 ms | p99 ms | all done in ms | CPU ms per answer | failed |\n`,
  );
  process.stdout.write(`|---|---:|---:|---:|---:|---:|---:|---:|\n`);
  for (let r = 0; r <= rounds; r++) {
    const cpu0 = treeCpuSeconds(pid);
    const f = await fanOut(`${p.url}/graphql`, await auth(), n, pid, question);
    const cpu1 = treeCpuSeconds(pid);
    const cpu = cpu0 !== undefined && cpu1 !== undefined ? (((cpu1 - cpu0) * 1000) / n).toFixed(2) : '-';
    failed += f.failed;
    process.stdout.write(
      `| ${r || '0 (warm-up)'} | ${f.firstP50.toFixed(0)} | ${f.firstP99.toFixed(0)} | ${f.doneP50.toFixed(0)} | ${f.doneP99.toFixed(0)} | ${f.wallMs.toFixed(0)} | ${cpu} | ${f.failed}${f.firstError ? ` (${f.firstError})` : ''} |\n`,
    );
  }
  return failed ? 1 : 0;
}

runBench('bench fan-out', main);
