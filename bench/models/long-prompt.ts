/**
 * `npm run bench:long-prompt`: what long unbroken prompts do to everyone else (issue 17, item 1).
 * The platform (`platform start`, WORKERS=1 unless set, so every request meets the same event
 * loop) is probed on `/healthz`, one probe after another: first idle, then while, for each route
 * group and for the chat proxy's `prev_context`, LONG_PROMPT_COUNT prompts of LONG_PROMPT_CHARS
 * letters without a space are sent LONG_PROMPT_CONCURRENCY at a time. Prints each phase's statuses
 * and the probes' p50, p99 and max.
 *
 * Env: LONG_PROMPT_CHARS (200000), LONG_PROMPT_COUNT (20), LONG_PROMPT_CONCURRENCY (4),
 * LONG_PROMPT_IDLE_SECONDS (3), LONG_PROMPT_ROUTES (a comma-separated subset of the names, all by
 * default), WORKERS (1), LOG_LEVEL (warn). Needs `npm run build` first.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { longCalls, unbroken } from './long-prompt-routes';
import { flood, probe, summary, statusesOf, type Probes } from './probe';
import { tokens, type Bootstrap } from '../shared/http-client';
import { freePorts, machineLine, makeTempDir, runBench, startPlatform } from '../shared/platform';

const intEnv = (name: string, fallback: number) => Number(process.env[name] || fallback);

const row = (name: string, p: Probes, statuses = '') => {
  const s = summary(p);
  return `| ${name} | ${statuses} | ${s.n} | ${s.failed} | ${s.p50} | ${s.p99} | ${s.max} |`;
};

async function main(): Promise<number> {
  process.env.WORKERS ||= '1';
  const chars = intEnv('LONG_PROMPT_CHARS', 200_000);
  const count = intEnv('LONG_PROMPT_COUNT', 20);
  const concurrency = intEnv('LONG_PROMPT_CONCURRENCY', 4);
  const idleSeconds = intEnv('LONG_PROMPT_IDLE_SECONDS', 3);
  const only = process.env.LONG_PROMPT_ROUTES?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const out = process.stdout;
  out.write(
    `${machineLine()}\nplatform WORKERS=${process.env.WORKERS}; ${count} prompts of ${chars} letters without a space per route, ${concurrency} at a time; ` +
      '/healthz probed one request after another (5 ms apart) from this process; a new connection for every request\n\n',
  );
  const dir = makeTempDir('long-prompt-bench-');
  const [port] = await freePorts(1);
  const platform = await startPlatform(dir, port);
  const boot = platform.boot as Bootstrap & { tenant_id?: string };
  const tok = tokens(platform.url, boot);
  // A user token valid for another minute at least (the chat proxy's `request.user_cred.token`), taken before each phase.
  const params = { apiKey: boot.api_key!, userToken: '', tenant: boot.tenant_id! };
  // Each prompt differs (its seed), so nothing is answered from a cache, the tokenizer's included.
  const names = longCalls(params, '')
    .map((c) => c.name)
    .filter((n) => !only?.length || only.includes(n));
  const call = (name: string, i: number) =>
    longCalls(params, unbroken(chars, 1000 * names.indexOf(name) + i + 1)).find((c) => c.name === name)!;

  out.write('| phase | prompts answered | probes | failed | /healthz p50 ms | p99 ms | max ms |\n|---|---|---|---|---|---|---|\n');
  out.write(`${row('idle', await probe(platform.url, sleep(idleSeconds * 1000)))}\n`);
  const all: Probes = { ms: [], failed: 0 };
  for (const name of names) {
    params.userToken = (await tok.headers()).authorization.slice('Bearer '.length);
    // Made before the phase, so that making them does not delay this process's probes.
    const prompts = Array.from({ length: count }, (_, i) => call(name, i));
    const sent = flood(platform.url, (i) => prompts[i], count, concurrency);
    const probes = await probe(platform.url, sent);
    const statuses = statusesOf(await sent);
    all.ms.push(...probes.ms);
    all.failed += probes.failed;
    out.write(`${row(name, probes, statuses)}\n`);
  }
  out.write(`${row('all routes', all)}\n`);
  return 0;
}

runBench('bench:long-prompt', main);
