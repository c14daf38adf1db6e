/**
 * `npm run bench:large-json`: what large JSON structures (tool schemas, response schemas, message
 * parts, tool results, embedding inputs, GraphQL inputs) do to everyone else (issue 30, item 4).
 * The platform (`platform start`, WORKERS=1 unless set, so every request meets the same event
 * loop) is probed on `/healthz`, one probe after another: idle, then while LARGE_JSON_COUNT requests
 * of one kind (large-json-bodies.ts: about LARGE_JSON_BYTES of structure each, the plain body of one
 * long string as the baseline; chat calls go to a built-in model with a context of two million
 * tokens, so both builds answer them) are sent LARGE_JSON_CONCURRENCY at a time. With LARGE_JSON_BEFORE
 * (the root of another checkout, built: an older commit's), that build is started beside this one
 * and every phase runs against it first, then against this one, so both are measured in the same
 * run under the same conditions. Prints each phase's statuses, the CPU time the platform's main
 * thread spent per request (Linux: its event loop and garbage collection; the probes' share is
 * small), and the probes' p50, p99 and max.
 *
 * Env: LARGE_JSON_BYTES (1000000), LARGE_JSON_COUNT (24), LARGE_JSON_CONCURRENCY (8),
 * LARGE_JSON_IDLE_SECONDS (3), LARGE_JSON_CALLS (a comma-separated subset of the names),
 * LARGE_JSON_BEFORE, WORKERS (1), LOG_LEVEL (warn). Needs `npm run build` first (and in LARGE_JSON_BEFORE).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { LARGE_CHAT_CATALOG, largeCalls, type LargeParams } from './large-json-bodies';
import { DEFAULT_CATALOG } from '../../core/models/catalog/catalog';
import { flood, loopCpuMs, probe, statusesOf, summary, type Probes } from './probe';
import { tokens, type Bootstrap } from '../shared/http-client';
import { freePorts, machineLine, makeTempDir, runBench, startPlatform, type Platform } from '../shared/platform';

const intEnv = (name: string, fallback: number) => Number(process.env[name] || fallback);

interface Target {
  label: string;
  platform: Platform;
  params: LargeParams;
  tok: ReturnType<typeof tokens>;
}

async function target(dir: string, label: string, port: number, root?: string): Promise<Target> {
  const sub = join(dir, label);
  mkdirSync(sub);
  const platform = await startPlatform(sub, port, root);
  const boot = platform.boot as Bootstrap & { tenant_id?: string };
  return { label, platform, params: { apiKey: boot.api_key!, userToken: '', tenant: boot.tenant_id! }, tok: tokens(platform.url, boot) };
}

const cell = (p: Probes, statuses: string, loopMs?: number) => {
  const s = summary(p);
  return `${statuses} | ${loopMs === undefined ? '' : loopMs.toFixed(1)} | ${s.p50} | ${s.p99} | ${s.max}`;
};

async function main(): Promise<number> {
  process.env.WORKERS ||= '1';
  const bytes = intEnv('LARGE_JSON_BYTES', 1_000_000);
  const count = intEnv('LARGE_JSON_COUNT', 24);
  const concurrency = intEnv('LARGE_JSON_CONCURRENCY', 8);
  const idleSeconds = intEnv('LARGE_JSON_IDLE_SECONDS', 3);
  const only = process.env.LARGE_JSON_CALLS?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const beforeRoot = process.env.LARGE_JSON_BEFORE ? resolve(process.env.LARGE_JSON_BEFORE) : undefined;
  const out = process.stdout;
  out.write(
    `${machineLine()}\nplatform WORKERS=${process.env.WORKERS}; per kind ${count} requests of about ${bytes} bytes of JSON, ${concurrency} at a time; ` +
      `/healthz probed one request after another (5 ms apart) from this process; a new connection for every request${beforeRoot ? `; before = ${beforeRoot}` : ''}\n\n`,
  );
  const dir = makeTempDir('large-json-bench-');
  // Both builds read the same catalog: the built-in models and one with a context large enough to answer every request.
  process.env.MODELS_CATALOG_FILE = join(dir, 'catalog.json');
  writeFileSync(process.env.MODELS_CATALOG_FILE, JSON.stringify({ models: [...DEFAULT_CATALOG.models, LARGE_CHAT_CATALOG] }));
  const [p1, p2] = await freePorts(2);
  const targets = [...(beforeRoot ? [await target(dir, 'before', p2, beforeRoot)] : []), await target(dir, 'after', p1)];
  const names = largeCalls(targets[0].params, 1000, 0)
    .map((c) => c.name)
    .filter((n) => !only?.length || only.includes(n));

  const heads = targets.map((t) => `${t.label}: answers | loop CPU ms per request | p50 ms | p99 ms | max ms`).join(' | ');
  out.write(`| requests | ${heads} |\n|---|${targets.map(() => '---|---:|---:|---:|---:|').join('')}\n`);
  const idle = await Promise.all(targets.map(async (t) => cell(await probe(t.platform.url, sleep(idleSeconds * 1000)), '')));
  out.write(`| idle | ${idle.join(' | ')} |\n`);
  for (const [k, name] of names.entries()) {
    const cells: string[] = [];
    for (const t of targets) {
      t.params.userToken = (await t.tok.headers()).authorization.slice('Bearer '.length);
      // Made before the phase, so that making them does not delay this process's probes; each differs (its seed).
      const calls = Array.from({ length: count }, (_, i) =>
        largeCalls(t.params, bytes, 1000 * k + i + 1)
          .find((c) => c.name === name)!
          .make(),
      );
      const pid = t.platform.child.proc.pid;
      const cpuBefore = loopCpuMs(pid);
      const sent = flood(t.platform.url, (i) => calls[i], count, concurrency);
      const probes = await probe(t.platform.url, sent);
      const statuses = statusesOf(await sent);
      const cpuAfter = loopCpuMs(pid);
      // The probes' own cost is in it too: a few hundredths of a millisecond each.
      cells.push(cell(probes, statuses, cpuBefore === undefined || cpuAfter === undefined ? undefined : (cpuAfter - cpuBefore) / count));
    }
    out.write(`| ${name} | ${cells.join(' | ')} |\n`);
  }
  return 0;
}

runBench('bench:large-json', main);
