/**
 * `npm run bench:chat`: what the chat proxy adds to a streamed answer. A stamping fake upstream (its
 * own process, bench/chat/upstream.ts) answers a catalog model of the platform (`platform start`)
 * whose bootstrap tenant holds SciFact's abstracts. Each SciFact test claim is asked through
 * `POST /api/stream_generate_answer` and, with the very prompt the chat proxy built, straight to the
 * gateway's Azure OpenAI route, in the same run:
 * - one client, rounds interleaving the two ways after every worker is warm: time to the first
 *   piece and to the whole answer, and each piece's trip from the upstream to the client;
 * - BENCH_CHAT_STREAMS concurrent streams: answers/s.
 * Cache and guards off (`is_cache` 0, `use_guard` 0) so both ways do the same work in the gateway.
 *
 * Env: BENCH_CHAT_CALLS (300 per way), BENCH_CHAT_STREAMS (20), BENCH_SECONDS (5), BENCH_WARMUP_SECONDS
 * (1), BENCH_CHAT_WARM_CALLS (20 per warm-up connection), BENCH_CHAT_DOCS (all 5,183), BENCH_INGEST_CONCURRENCY
 * (8), BENCH_CHAT_CHUNKS (10) pieces BENCH_CHAT_GAP_MS (2) apart, SCIFACT_DIR, BENCH_CHAT_JSON (where
 * the figures go as JSON; a file in the OS temp dir when unset); WORKERS and LOG_LEVEL (warn) pass
 * through to the platform. Needs `npm run build` first. Exits non-zero on errors, not on missed targets.
 */
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { throughput } from './load';
import { rounds, warmWorkers } from './latency';
import { figures, latencyTable, loadTable, targetLines } from './report';
import { startChatPlatform, startUpstream } from './setup';
import { asker, capture } from './ways';
import { scifactDir } from '../shared/datasets';
import { loadSciFact } from '../shared/scifact';
import { progress } from '../shared/progress';
import { freePorts, logWarnings, machineLine, makeTempDir, platformWorkers, runBench, stopMeasured } from '../shared/platform';

const intEnv = (name: string, fallback: number) => Number(process.env[name] || fallback);

async function main(): Promise<number> {
  const calls = intEnv('BENCH_CHAT_CALLS', 300);
  const streams = intEnv('BENCH_CHAT_STREAMS', 20);
  const seconds = intEnv('BENCH_SECONDS', 5);
  const warmup = intEnv('BENCH_WARMUP_SECONDS', 1);
  const warmCalls = intEnv('BENCH_CHAT_WARM_CALLS', 20);
  const pieces = intEnv('BENCH_CHAT_CHUNKS', 10);
  const gap = intEnv('BENCH_CHAT_GAP_MS', 2);
  const workers = platformWorkers();
  const sci = loadSciFact(scifactDir());
  const docs = sci.docs.slice(0, intEnv('BENCH_CHAT_DOCS', sci.docs.length));
  const claims = sci.queries.map((q) => q.text);
  const out = process.stdout;
  out.write(
    `${machineLine()}\nplatform WORKERS=${workers}; fake upstream (one process): ${pieces} pieces ${gap} ms apart; SciFact: ${docs.length} abstracts, ` +
      `${claims.length} test claims; one client: ${calls} answers per way in 4 rounds (ways interleaved); load: ${streams} streams, ${seconds} s after ${warmup} s warm-up\n\n`,
  );

  const dir = makeTempDir('chat-bench-');
  const [port] = (await freePorts(1)) as [number];
  const upstream = await startUpstream(dir);
  const p = await startChatPlatform(dir, port, upstream, docs, intEnv('BENCH_INGEST_CONCURRENCY', 8));
  out.write(`ingested ${docs.length} abstracts in ${p.ingestSeconds.toFixed(1)} s (${(docs.length / p.ingestSeconds).toFixed(0)}/s)\n`);

  // One chat call per claim gives its prompt; it also warms the indexes the workers build after ingest.
  const qs = await capture(
    p,
    upstream,
    claims,
    pieces,
    progress('prompts (one chat call per claim, then the same prompt direct)', claims.length),
  );
  const a = asker(p, pieces);
  await warmWorkers(p.url, a, qs, workers, warmCalls);
  const times = await rounds(p.url, a, qs, calls, 4, progress('one client, both ways', Math.ceil(calls / 4) * 4));
  const load = await throughput(p.url, a, qs, streams, seconds, warmup);

  const f = figures(times);
  const failures = load.filter((r) => r.errors).map((r) => `${r.way} @${r.streams}: ${r.errors} errors, the first: ${r.firstError}`);
  out.write(
    `\nOne client, calls in a row (ms; * on the upstream's clock and this one's, whose constant offset cancels in "added")\n\n${latencyTable(times)}\n\n`,
  );
  out.write(`${streams} concurrent streams (answers finished within ${seconds} s; ms)\n\n${loadTable(load)}\n\n`);
  out.write(`${targetLines(f).join('\n')}\n`);
  await stopMeasured(p.child, failures);
  const warnings = logWarnings(p.logFile);
  if (warnings.length) out.write(`\n${warnings.join('\n')}\n`);
  const json = process.env.BENCH_CHAT_JSON || join(tmpdir(), `bench-chat-${Date.now()}.json`);
  writeFileSync(
    json,
    JSON.stringify(
      {
        machine: machineLine(),
        workers,
        pieces,
        gap,
        docs: docs.length,
        ingestSeconds: p.ingestSeconds,
        figures: f,
        latency: times,
        load: load.map(({ whole: _w, first: _f, ...r }) => r),
        failures,
      },
      null,
      1,
    ),
  );
  out.write(`\nfigures as JSON: ${json}\n`);
  if (failures.length) {
    out.write(`\nFAILURES:\n${failures.join('\n')}\n`);
    return 1;
  }
  out.write('all runs clean: every stream 200 with every piece and a stop\n');
  return 0;
}

runBench('bench:chat', main);
