/**
 * `npm run bench:builds`: two builds of the platform side by side, to show a change costs nothing
 * (docs/performance.md, "Two builds side by side"). BEFORE names another checkout, already built
 * (its dist/bin/platform.js exists); AFTER is this checkout unless set. Both run `platform start`
 * with the same settings (WORKERS=1 unless set, a fresh SQLite data dir each, the same catalog file,
 * one fake OpenAI-wire upstream for both: bench/chat/upstream.ts) and stay up the whole run. Four
 * scenarios (bench/builds/scenarios.ts: token issue, model chat, streamed chat, GraphQL), each
 * after a warm-up of each build, are measured in ROUNDS rounds at a fixed concurrency, the builds
 * loaded in turn (before first in rounds 1, 3, 5, ..., after first in the others), so that the shared
 * machine's noise lands on both alike. A figure is the median of the rounds; a ratio after/before
 * the median of the rounds' ratios; CPU per request is the platform's (all its processes) per answer.
 *
 * Env: BEFORE (required), AFTER (this checkout), ROUNDS (5), BENCH_SECONDS (3) per measured run,
 * BENCH_WARMUP_SECONDS (2) per build and scenario before the rounds, BENCH_CONNECTIONS (10) requests
 * in flight, BENCH_TOLERANCE (5) percent of slowdown before a scenario is flagged, BENCH_CHAT_CHUNKS
 * (10) pieces BENCH_CHAT_GAP_MS (2) ms apart from the fake upstream; WORKERS and LOG_LEVEL (warn)
 * pass through to both platforms. Exits 2 when BEFORE or AFTER is not a built checkout, 1 when any
 * answer failed its check, else 0 (the verdicts are printed, not enforced).
 */
import { loadavg } from 'node:os';
import { treeCpuSeconds } from '../shared/cpu';
import { freePorts, logWarnings, machineLine, makeTempDir, ROOT, runBench, stopMeasured } from '../shared/platform';
import { progress } from '../shared/progress';
import { problems } from '../shared/report';
import { intEnv } from '../shared/settings';
import { startUpstream } from '../chat/setup';
import { orderOf, type Paired, type Run } from './figures';
import { roundLines, table, verdicts } from './report';
import { scenarios, type Scenario } from './scenarios';
import { checkouts, commonEnvironment, startBuild, unusable, type Build } from './setup';

const log = (s: string) => process.stderr.write(s);

async function main(): Promise<number> {
  const after = process.env.AFTER || ROOT;
  const refused = unusable(process.env.BEFORE, after);
  if (refused) {
    log(`bench:builds: ${refused}\n`);
    return 2;
  }
  const rounds = intEnv('ROUNDS', 5, 1);
  const seconds = intEnv('BENCH_SECONDS', 3, 1);
  const warmup = intEnv('BENCH_WARMUP_SECONDS', 2, 0);
  const concurrency = intEnv('BENCH_CONNECTIONS', 10, 1);
  const tolerance = intEnv('BENCH_TOLERANCE', 5, 0) / 100;
  const pieces = intEnv('BENCH_CHAT_CHUNKS', 10, 1);
  const machine = machineLine();
  const dir = makeTempDir('platform-bench-builds-');
  const upstream = await startUpstream(dir);
  commonEnvironment(dir, upstream);
  const builds: Build[] = [];
  const ports = await freePorts(2);
  for (const [i, c] of checkouts(process.env.BEFORE!, after).entries()) {
    log(`starting ${c.side}: ${c.root} (${c.commit}) ...\n`);
    builds.push(await startBuild(c, dir, ports[i]));
  }
  const bySide = (side: string) => builds.find((b) => b.side === side)!;
  const failures: string[] = [];
  const all = scenarios(pieces);

  const measure = async (s: Scenario, b: Build, secs: number): Promise<Run> => {
    const pid = b.p.child.proc.pid;
    const cpu0 = treeCpuSeconds(pid);
    const m = await s.run(b, secs, concurrency);
    const cpu1 = treeCpuSeconds(pid);
    if (cpu0 !== undefined && cpu1 !== undefined && m.requests > 0) m.cpuMs = ((cpu1 - cpu0) * 1000) / m.requests;
    const bad = problems(m);
    if (bad) failures.push(`${b.side}: ${bad}${m.errors && m.codes ? ` (${m.codes})` : ''}`);
    return m;
  };

  const runs = all.length * 2 * (rounds + (warmup ? 1 : 0));
  const tick = progress('runs', runs);
  let done = 0;
  if (warmup) {
    for (const s of all) {
      for (const b of builds) {
        await measure(s, b, warmup);
        tick(++done, `: warm-up, ${s.name}, ${b.side}`);
      }
    }
  }
  const paired: Paired[] = all.map((s) => ({ scenario: s.name, before: [], after: [] }));
  const loads: string[] = [];
  for (let round = 0; round < rounds; round++) {
    loads.push(
      loadavg()
        .map((l) => l.toFixed(2))
        .join(' '),
    );
    for (const [i, s] of all.entries()) {
      for (const side of orderOf(round)) {
        const m = await measure(s, bySide(side), seconds);
        paired[i][side].push(m);
        tick(++done, `: round ${round + 1}, ${s.name}, ${side} ${Math.round(m.rps)} req/s, p50 ${m.p50.toFixed(2)} ms`);
      }
    }
  }
  for (const b of builds) await stopMeasured(b.p.child, failures);

  const out = [
    machine,
    ...builds.map((b) => `${b.side}: ${b.root} (${b.commit})`),
    `both: platform start, WORKERS=${process.env.WORKERS}, LOG_LEVEL=${process.env.LOG_LEVEL || 'warn'}, a fresh SQLite data dir each, both running, one loaded at a time; ` +
      'one fake upstream for both (bench/chat/upstream.ts)',
    `${concurrency} requests in flight, ${seconds} s per run, ${rounds} rounds (before first in odd-numbered rounds, after first in even-numbered ones)` +
      `${warmup ? ` after a ${warmup} s warm-up of each build and scenario` : ''}; figures are medians of the rounds, ratios the median of the rounds' ratios; ` +
      "CPU: the platform's processes' user + system time per answer",
    `load average at the start of each round: ${loads.join('; ')}`,
    ...all.map((s) => `${s.name}: ${s.what}`),
    '',
    table(paired),
    '',
    'after/before, round by round:',
    ...roundLines(paired),
    '',
    `verdicts (CPU per answer at most ${tolerance * 100} % higher, req/s at most ${tolerance * 100} % lower, p50 at most ${tolerance * 100} % higher; ` +
      'reported only, the exit code does not depend on them; a run of two builds of one commit shows how far the machine moves them):',
    ...verdicts(paired, tolerance),
  ];
  const warnings = builds.flatMap((b) => logWarnings(b.p.logFile).map((w) => `  ${b.side}: ${w}`));
  if (warnings.length) out.push('', 'platform warnings:', ...warnings);
  out.push('', failures.length ? 'FAILURES:' : 'all runs clean: every answer 200 with the expected body', ...failures.map((f) => `- ${f}`));
  process.stdout.write(`${out.join('\n')}\n`);
  return failures.length ? 1 : 0;
}

runBench('bench:builds', main);
