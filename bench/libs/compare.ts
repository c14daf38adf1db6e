/**
 * `npm run bench:libs`: the platform's hand-written code measured, in one run on this machine,
 * against the maintained library that does the same job (docs/decisions.md, "Issue 31:
 * hand-written code kept, and why"):
 * (a) GraphQL operation limits vs graphql-armor;
 * (b) upstream retries vs undici's RetryAgent (undici is already the platform's transport);
 * (c) limit counters (SQLite, Redis) vs rate-limiter-flexible.
 * The libraries not in the project are installed into a temporary folder kept between runs.
 * Redis is measured when REDIS_URL is set. BENCH_ROUNDS (default 5) rounds of BENCH_ROUND_MS
 * (default 300) per measurement, ours and theirs alternating. BENCH_ONLY=limits, retries or counters
 * runs that part alone.
 */
import { loadavg } from 'node:os';
import { installTempPackages } from '../shared/temp-packages';
import { ARMOR_PACKAGES, compareOperationLimits } from './operation-limits';
import { compareRetries } from './retries';
import { compareCounters, RLF_PACKAGES } from './counters';

const print = (s: string) => void process.stdout.write(s);

async function main() {
  const rounds = Number(process.env.BENCH_ROUNDS || 5);
  const ms = Number(process.env.BENCH_ROUND_MS || 300);
  const modules = installTempPackages('platform-bench-libs-1', { ...ARMOR_PACKAGES, ...RLF_PACKAGES }, (s) => process.stderr.write(s));
  print(
    `# bench:libs (node ${process.version}, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}, ${rounds} rounds of ${ms} ms, medians)\n`,
  );
  const only = process.env.BENCH_ONLY;
  if (!only || only === 'limits') await compareOperationLimits(modules, rounds, ms, print);
  if (!only || only === 'retries') await compareRetries(rounds, ms, print);
  if (!only || only === 'counters') await compareCounters(modules, rounds, ms, print);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
