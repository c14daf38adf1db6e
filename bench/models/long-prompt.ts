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
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { longCalls, unbroken, type LongCall } from './long-prompt-routes';
import { tokens, send, type Bootstrap } from '../shared/http-client';
import { freePorts, machineLine, makeTempDir, runBench, startPlatform } from '../shared/platform';

const intEnv = (name: string, fallback: number) => Number(process.env[name] || fallback);
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;

interface Probes {
  /** Each probe's latency (until it failed, for a failed one). */
  ms: number[];
  /** Probes that got no 200: the server closed the connection, or answered another status. */
  failed: number;
}

/** Probes `/healthz` one after another until `stop` resolves. */
async function probe(url: string, stop: Promise<unknown>): Promise<Probes> {
  const out: Probes = { ms: [], failed: 0 };
  let done = false;
  void stop.finally(() => (done = true));
  while (!done) {
    const started = performance.now();
    const ok = await send('GET', `${url}/healthz`, undefined, {}, { timeoutMs: 600_000, fresh: true }).then((r) => r.status === 200, () => false);
    out.ms.push(performance.now() - started);
    if (!ok) out.failed++;
    await sleep(5);
  }
  return out;
}

/** `count` calls, `concurrency` at a time; the statuses seen (or the network error), counted. */
async function flood(url: string, call: (i: number) => LongCall, count: number, concurrency: number): Promise<Map<string, number>> {
  const statuses = new Map<string, number>();
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < count) {
      const c = call(next++);
      const status = await send('POST', url + c.path, c.body, c.headers, { timeoutMs: 600_000, fresh: true })
        .then((r) => String(r.status), (err: NodeJS.ErrnoException) => err.code ?? err.message);
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
  }));
  return statuses;
}

const row = (name: string, p: Probes, statuses = '') => {
  const s = [...p.ms].sort((a, b) => a - b);
  return `| ${name} | ${statuses} | ${s.length} | ${p.failed} | ${pct(s, 50).toFixed(1)} | ${pct(s, 99).toFixed(1)} | ${(s.at(-1) ?? NaN).toFixed(1)} |`;
};

async function main(): Promise<number> {
  process.env.WORKERS ||= '1';
  const chars = intEnv('LONG_PROMPT_CHARS', 200_000);
  const count = intEnv('LONG_PROMPT_COUNT', 20);
  const concurrency = intEnv('LONG_PROMPT_CONCURRENCY', 4);
  const idleSeconds = intEnv('LONG_PROMPT_IDLE_SECONDS', 3);
  const only = process.env.LONG_PROMPT_ROUTES?.split(',').map((s) => s.trim()).filter(Boolean);
  const out = process.stdout;
  out.write(`${machineLine()}\nplatform WORKERS=${process.env.WORKERS}; ${count} prompts of ${chars} letters without a space per route, ${concurrency} at a time; ` +
    '/healthz probed one request after another (5 ms apart) from this process; a new connection for every request\n\n');
  const dir = makeTempDir('long-prompt-bench-');
  const [port] = await freePorts(1);
  const platform = await startPlatform(dir, port!);
  const boot = platform.boot as Bootstrap & { tenant_id?: string };
  const tok = tokens(platform.url, boot);
  // A user token valid for another minute at least (the chat proxy's `request.user_cred.token`), taken before each phase.
  const params = { apiKey: boot.api_key!, userToken: '', tenant: boot.tenant_id! };
  // Each prompt differs (its seed), so nothing is answered from a cache, the tokenizer's included.
  const names = longCalls(params, '').map((c) => c.name).filter((n) => !only?.length || only.includes(n));
  const call = (name: string, i: number) => longCalls(params, unbroken(chars, 1000 * names.indexOf(name) + i + 1)).find((c) => c.name === name)!;

  out.write('| phase | prompts answered | probes | failed | /healthz p50 ms | p99 ms | max ms |\n|---|---|---|---|---|---|---|\n');
  out.write(`${row('idle', await probe(platform.url, sleep(idleSeconds * 1000)))}\n`);
  const all: Probes = { ms: [], failed: 0 };
  for (const name of names) {
    params.userToken = (await tok.headers()).authorization!.slice('Bearer '.length);
    // Made before the phase, so that making them does not delay this process's probes.
    const prompts = Array.from({ length: count }, (_, i) => call(name, i));
    const sent = flood(platform.url, (i) => prompts[i]!, count, concurrency);
    const probes = await probe(platform.url, sent);
    const statuses = [...(await sent)].map(([s, n]) => `${n}×${s}`).join(' ');
    all.ms.push(...probes.ms);
    all.failed += probes.failed;
    out.write(`${row(name, probes, statuses)}\n`);
  }
  out.write(`${row('all routes', all)}\n`);
  return 0;
}

runBench('bench:long-prompt', main);
