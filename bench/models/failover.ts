/**
 * Failover under load (issue 35), for `npm run bench:routing` and `npm run bench:models`: a model
 * with three deployments on three fakes (bench/models/fleet.ts), steady load from
 * BENCH_FAILOVER_CONCURRENCY callers (50), then the first deployment fails (500s; a stall; 429
 * with `Retry-After: 3600`; streams cut halfway; then all three at once). The same scenarios run
 * against the platform (catalog routing) and Portkey (its `x-portkey-config` fallback config),
 * one after the other, on the same fakes. Every call carries a marker the fakes log, so attempts
 * per call and the time from a failing answer to the fallback are measured where they happen.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';
import type { Routing } from '../../core/models/catalog/catalog';
import { fixed, markdownTable, verdict } from '../shared/progress';
import { failoverFigures, percentile, type CallResult, type FailoverFigures, type FakeEvent, type Fault } from './fleet-log';

export interface Fleet {
  urls: string[];
  log: string;
}

export interface Scenario {
  name: string;
  /** What the failing deployments do. */
  fault: Fault;
  /** All deployments fail, not only the first. */
  all?: boolean;
  /** The fault ends before the watch (undefined: it lasts to the end). */
  heals: boolean;
  stream?: boolean;
  /** Callers in a loop, when not the options' concurrency (1: the routing's own time, no queueing). */
  callers?: number;
  /** Instead of steady load: this many calls at once, all sent while the fault is on. */
  burst?: number;
  /** What the goal lines say of it. */
  note: string;
}

export const SCENARIOS: Scenario[] = [
  {
    name: '500, one caller',
    fault: { mode: '500' },
    heals: true,
    callers: 1,
    note: 'first deployment answers 500; one caller, calls in a row',
  },
  { name: '500', fault: { mode: '500' }, heals: true, note: 'first deployment answers 500' },
  { name: 'stall', fault: { mode: 'stall' }, heals: true, note: 'first deployment never answers' },
  { name: '429', fault: { mode: '429', retryAfterSeconds: 3600 }, heals: false, note: 'first deployment 429, Retry-After: 3600' },
  {
    name: 'half-stream',
    fault: { mode: 'half-reset' },
    heals: true,
    stream: true,
    note: 'first deployment sends half a stream, then resets',
  },
  { name: 'burst-500', fault: { mode: '500' }, heals: true, burst: 500, note: '500 calls at once while the first deployment answers 500' },
  { name: 'all-500', fault: { mode: '500' }, all: true, heals: true, note: 'all three answer 500' },
];

/** The routing policy of the bench's failover models: what the figures are measured under. */
export const FAILOVER_ROUTING = {
  strategy: 'fallback',
  retry: { attempts: 0, on: [429, 500, 502, 503, 504], backoffMs: 0, maxRetryAfterMs: 5_000 },
  timeout: { attemptMs: 500, totalMs: 5_000 },
  cooldown: { failures: 3, windowSeconds: 10, seconds: 3 },
} satisfies Partial<Routing>;

const slug = (s: Scenario) => s.name.replace(/\W+/g, '-');
export const failoverModelId = (s: Scenario) => `bench-failover-${slug(s)}`;

/** The catalog models of the scenarios: three deployments each, on the three fakes. */
export const failoverCatalogModels = (fleet: Fleet) =>
  SCENARIOS.map((s) => ({
    id: failoverModelId(s),
    group: 'A',
    kind: 'chat',
    contextLength: 8192,
    deployments: fleet.urls.map((u, i) => ({
      id: `d${i + 1}`,
      upstream: { provider: 'openai-compatible', baseUrl: `${u}/v1`, model: 'fleet-model' },
    })),
    routing: FAILOVER_ROUTING,
  }));

/** Where a scenario's calls go, with which headers. */
export interface Door {
  name: string;
  url: (s: Scenario) => string;
  headers: (s: Scenario) => Record<string, string>;
}

export const gatewayDoor = (gateway: string, apiKey: string): Door => ({
  name: 'gateway',
  url: (s) => `${gateway}/proxy/api/v1/azure/openai/deployments/${failoverModelId(s)}/chat/completions?api-version=2024-10-21`,
  headers: () => ({ 'content-type': 'application/json', 'api-key': `${apiKey}/{"is_cache": 0, "use_guard": 0}` }),
});

/** Portkey's fallback config over the same three fakes, per request: no cooldown exists in it. */
export const portkeyDoor = (portkey: string, fleet: Fleet): Door => ({
  name: 'portkey',
  url: () => `${portkey}/v1/chat/completions`,
  headers: () => ({
    'content-type': 'application/json',
    authorization: 'Bearer sk-bench',
    'x-portkey-config': JSON.stringify({
      // 408: Portkey's own answer when a target's request_timeout strikes.
      strategy: { mode: 'fallback', on_status_codes: [408, ...FAILOVER_ROUTING.retry.on] },
      targets: fleet.urls.map((u) => ({
        provider: 'openai',
        api_key: 'sk-bench',
        custom_host: `${u}/v1`,
        request_timeout: FAILOVER_ROUTING.timeout.attemptMs,
      })),
    }),
  }),
});

const body = (marker: string, stream: boolean) =>
  JSON.stringify({
    model: 'fleet-model',
    max_tokens: 64,
    ...(stream ? { stream: true } : {}),
    messages: [
      { role: 'system', content: 'Answer in one sentence.' },
      { role: 'user', content: `Why do glaciers retreat? [call ${marker}]` },
    ],
  });

/** A caller gives up after this long (bounds every call of the bench); a burst's, later (500 calls queue on 2 cores). */
const CALL_TIMEOUT_MS = 10_000;
const BURST_CALL_TIMEOUT_MS = 30_000;

async function call(pool: Pool, door: Door, s: Scenario, marker: string): Promise<CallResult> {
  const u = new URL(door.url(s));
  try {
    const res = await pool.request({
      method: 'POST',
      path: u.pathname + u.search,
      headers: door.headers(s),
      body: body(marker, s.stream === true),
      signal: AbortSignal.timeout(s.burst ? BURST_CALL_TIMEOUT_MS : CALL_TIMEOUT_MS),
    });
    const text = await res.body.text();
    // Whole: the answer's last word arrived, and a stream ended as streams end (not only with [DONE]).
    const ok =
      res.statusCode === 200 &&
      text.includes('falls') &&
      (s.stream
        ? text.includes('data: [DONE]') && text.includes('"finish_reason":"stop"') && !text.includes('"error"')
        : text.includes('"choices"'));
    // A 200 that failed shows how it ended; an error status, how it began.
    return { marker, status: res.statusCode, ok, ...(ok ? {} : { error: res.statusCode === 200 ? text.slice(-300) : text.slice(0, 300) }) };
  } catch (err) {
    return { marker, status: 0, ok: false, error: (err as Error).message };
  }
}

const post = async (url: string, json: unknown) => {
  const res = await fetch(url, { method: 'POST', body: JSON.stringify(json), headers: { 'content-type': 'application/json' } });
  return (await res.json()) as { at: number };
};

/** Sets the fault of the named fakes; returns when it began on the fakes' clock. */
const setFault = async (fleet: Fleet, which: number[], fault: Fault) =>
  Math.min(...(await Promise.all(which.map((i) => post(`${fleet.urls[i]}/__fault`, fault)))).map((r) => r.at));

const drain = async (fleet: Fleet) => (await (await fetch(fleet.log)).json()) as FakeEvent[];

/** Waits (15 s at most) until the fakes saw no call for half a second: an earlier scenario's calls are worked off. */
async function quiet(fleet: Fleet): Promise<void> {
  for (let i = 0; i < 30 && (await drain(fleet)).length; i++) await sleep(500);
}

export interface ScenarioResult {
  door: string;
  scenario: Scenario;
  figures: FailoverFigures;
  /** A few distinct errors callers saw, to show what a caller gets. */
  samples: string[];
}

export interface FailoverOptions {
  concurrency: number;
  /** Seconds of load before the fault, with the fault, and after it ends. */
  warmSeconds: number;
  faultSeconds: number;
  watchSeconds: number;
}

/** One scenario through one door: load, fault, heal, watch; then the fakes' log read. */
export async function runScenario(fleet: Fleet, door: Door, s: Scenario, o: FailoverOptions): Promise<ScenarioResult> {
  const all = fleet.urls.map((_, i) => i);
  await setFault(fleet, all, { mode: 'ok' });
  await quiet(fleet);
  if (s.burst) return runBurst(fleet, door, s, s.burst, o);
  const callers = s.callers ?? o.concurrency;
  const pool = new Pool(new URL(door.url(s)).origin, { connections: callers, pipelining: 1 });
  const results: CallResult[] = [];
  let stop = false;
  let n = 0;
  const loops = Array.from({ length: callers }, async () => {
    while (!stop) results.push(await call(pool, door, s, `${door.name}-${slug(s)}-${n++}`));
  });
  await sleep(o.warmSeconds * 1000);
  const faultAt = await setFault(fleet, s.all ? all : [0], s.fault);
  await sleep(o.faultSeconds * 1000);
  const healAt = s.heals ? await setFault(fleet, all, { mode: 'ok' }) : undefined;
  await sleep(o.watchSeconds * 1000);
  stop = true;
  await Promise.all(loops);
  await pool.close();
  const until = performance.timeOrigin + performance.now();
  await setFault(fleet, all, { mode: 'ok' });
  return resultOf(door, s, results, await drain(fleet), { faultAt, healAt, until });
}

/** `count` calls at once on as many connections, all while the first deployment fails. */
async function runBurst(fleet: Fleet, door: Door, s: Scenario, count: number, o: FailoverOptions): Promise<ScenarioResult> {
  const all = fleet.urls.map((_, i) => i);
  const pool = new Pool(new URL(door.url(s)).origin, { connections: count, pipelining: 1 });
  // The connections first, so the burst is the calls and not the handshakes.
  await Promise.all(
    Array.from({ length: Math.min(count, o.concurrency) }, (_, i) => call(pool, door, s, `${door.name}-${slug(s)}-warm${i}`)),
  );
  await drain(fleet);
  const faultAt = await setFault(fleet, [0], s.fault);
  const results = await Promise.all(Array.from({ length: count }, (_, i) => call(pool, door, s, `${door.name}-${slug(s)}-${i}`)));
  const healAt = await setFault(fleet, all, { mode: 'ok' });
  await pool.close();
  const until = performance.timeOrigin + performance.now();
  return resultOf(door, s, results, await drain(fleet), { faultAt, healAt, until });
}

function resultOf(
  door: Door,
  s: Scenario,
  results: CallResult[],
  events: FakeEvent[],
  w: { faultAt: number; healAt?: number; until: number },
) {
  // BENCH_FAILOVER_LOG_DIR: every call and every attempt of the scenario as JSON, to check a figure by hand.
  const dir = process.env.BENCH_FAILOVER_LOG_DIR;
  if (dir) writeFileSync(join(dir, `${door.name}-${slug(s)}.json`), JSON.stringify({ window: w, results, events }));
  const figures = failoverFigures(results, events, { failing: 0, ...w, settleMs: 1000 });
  const samples = [
    ...new Set(
      results
        .filter((r) => !r.ok)
        .map((r) => `${r.status}: ${r.status === 200 ? (r.error ?? '').slice(-160) : (r.error ?? '').slice(0, 160)}`),
    ),
  ].slice(0, 2);
  return { door: door.name, scenario: s, figures, samples };
}

const secs = (ms: number, within: number) => (Number.isNaN(ms) ? `not within ${within.toFixed(0)} s` : `${(ms / 1000).toFixed(2)} s`);

/** The table of every scenario through every door, and the goal lines (met or not). */
export function failoverReport(rows: ScenarioResult[], o: FailoverOptions): string {
  const table = markdownTable(
    [
      'door',
      'scenario',
      'calls',
      'caller errors',
      'attempts/call mean',
      'max',
      'first fallback ms',
      'fallback p50 ms',
      'p99',
      'longest pause at the failing deployment',
      'attempts there 1 s after its first failure',
      'back after the fault ended',
    ],
    rows.map(({ door, scenario: s, figures: f }) => [
      door,
      s.name,
      String(f.calls),
      f.callerErrors ? `${f.callerErrors} (${f.errorStatuses})` : '0',
      fixed(f.attemptsMean),
      String(f.attemptsMax),
      fixed(f.firstFallbackMs, 1),
      fixed(percentile(f.fallbackGaps, 0.5), 1),
      fixed(percentile(f.fallbackGaps, 0.99), 1),
      secs(f.longestPauseMs, o.faultSeconds),
      String(f.lateAttempts),
      s.heals ? secs(f.backAfterHealMs, o.watchSeconds) : 'n/a',
    ]),
  );
  const lines: string[] = [];
  for (const door of [...new Set(rows.map((r) => r.door))]) {
    const mine = rows.filter((r) => r.door === door);
    // A scenario whose failing deployment saw no call during the fault tested nothing (a stalled
    // machine): it is named, and left out of the verdicts.
    const tested = mine.filter((r) => r.figures.failingHits > 0);
    for (const r of mine.filter((x) => x.figures.failingHits === 0))
      lines.push(`${door}: ${r.scenario.name}: no call reached the failing deployment during the fault: not measured`);
    const healthyOther = tested.filter((r) => !r.scenario.all && !r.scenario.stream);
    const errors = healthyOther.reduce((sum, r) => sum + r.figures.callerErrors, 0);
    const first = healthyOther.map((r) => r.figures.firstFallbackMs);
    const hour = tested.find((r) => r.scenario.name === '429');
    const failing = tested.find((r) => r.scenario.name === '500');
    const allFail = tested.find((r) => r.scenario.all);
    const cool = FAILOVER_ROUTING.cooldown.seconds * 1000;
    const rested = failing?.figures.longestPauseMs ?? Number.NaN;
    const when = <T>(r: unknown, ok: () => T) => (r === undefined ? undefined : ok());
    lines.push(
      `${door}: no caller error while another deployment is healthy (${healthyOther.map((r) => r.scenario.name).join('; ')}): ${errors} errors: ` +
        verdict(healthyOther.length ? errors === 0 : undefined),
      `${door}: first fallback within 50 ms of the failing answer (same scenarios; stall: of the attempt's end): ` +
        `${first.map((v) => fixed(v, 1)).join(', ')} ms: ${verdict(first.length ? first.every((v) => v <= 50) : undefined)}`,
      `${door}: a failing deployment rests about its cooldown (${cool / 1000} s), then is tried again: longest pause ${secs(rested, o.faultSeconds)} ` +
        `in a ${o.faultSeconds} s fault: ${verdict(when(failing, () => rested >= 0.8 * cool && rested <= cool + 1500))}`,
      `${door}: a 429 with Retry-After: 3600 keeps the deployment out for the rest of the run: ${hour?.figures.lateAttempts ?? 'n/a'} attempts ` +
        `there later than 1 s after its first 429: ${verdict(when(hour, () => hour!.figures.lateAttempts === 0))}`,
      `${door}: all failing: attempts per call bounded by the deployments (${FLEET_SIZE}): max ${allFail?.figures.attemptsMax ?? 'n/a'}, ` +
        `${allFail?.figures.attemptsTotal ?? 'n/a'} attempts for ${allFail?.figures.calls ?? 'n/a'} calls: ` +
        verdict(when(allFail, () => allFail!.figures.attemptsMax <= FLEET_SIZE)),
    );
    for (const r of mine.filter((x) => x.samples.length))
      lines.push(`${door}: ${r.scenario.name}: what a caller gets: ${r.samples.join(' | ')}`);
  }
  return `${table}\n\n${lines.join('\n')}`;
}

export const FLEET_SIZE = 3;
