import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { scan, type Finding, type Kind } from './wall-clock';

/**
 * The suite passes on a loaded machine: no test asserts that something took less than some time,
 * and none waits for an event with a fixed sleep or acts after a fixed delay (wall-clock.ts says
 * what is found). A test waits for the event itself: test/shared/wait.ts's `eventually`, a promise,
 * an event listener. What is left below is part of what its test tests, each with its reason;
 * an entry that no longer matches fails too, so the list stays true.
 */
const ALLOWED: { file: string; kind: Kind; text: string; reason: string }[] = [
  // Lower bounds: a mechanism waits at least its delay; a loaded machine only makes it later.
  {
    file: 'test/core/models/upstream-http.test.ts',
    kind: 'bound',
    text: 'toBeGreaterThanOrEqual(35)',
    reason: "the retry waits at least Azure's retry-after-ms (40)",
  },
  {
    file: 'test/e2e/chat/graphql.test.ts',
    kind: 'bound',
    text: 'toBeGreaterThanOrEqual(2900)',
    reason: 'the socket is closed no sooner than its 3 s connection_init timeout',
  },
  {
    file: 'test/gateway/tracing.test.ts',
    kind: 'bound',
    text: 'nanos(stream.duration)',
    reason: "a span's structure: the stream's span lies within its operation's, no speed",
  },
  // Time as the scenario: what the test puts the system through, not a wait for it to get somewhere.
  {
    file: 'test/e2e/replicas/faults.test.ts',
    kind: 'sleep',
    text: 'setTimeout(r, 2000)',
    reason: 'the database stays away two seconds under traffic (after the outage was seen)',
  },
  {
    file: 'test/gateway/telemetry-graph.ts',
    kind: 'sleep',
    text: "if (name === 'slow')",
    reason: 'a slow subgraph (300 ms), so identical queries meet in flight',
  },
  { file: 'test/gateway/telemetry-graph.ts', kind: 'sleep', text: 'if (delayMs)', reason: 'a subscription the test asks to open late' },
  {
    file: 'test/core/chat/retrieval.test.ts',
    kind: 'timed',
    text: "resolve([passage('doc')]), 100)",
    reason: 'a fake search answering late, beside an extraction that never does',
  },
  {
    file: 'test/bench/graphql/varied.test.ts',
    kind: 'timed',
    text: 'setTimeout(() => {',
    reason: 'a fake gateway answering after 5 ms, so requests overlap',
  },
  {
    file: 'test/bin/metrics-server.test.ts',
    kind: 'sleep',
    text: 'setTimeout(r, 20)',
    reason: 'a gathering that takes a while, for the scrapes to share',
  },
  {
    file: 'test/bin/shared-pools.test.ts',
    kind: 'sleep',
    text: 'setTimeout(r, 10)',
    reason: 'a task that takes a while, so the flood holds its turn',
  },
  {
    file: 'test/bin/readiness.test.ts',
    kind: 'sleep',
    text: 'const wait = (ms: number)',
    reason: 'a step of the real clock past the 500 ms cache (readinessOf takes no clock); longer only helps',
  },
  {
    file: 'test/gateway/ws-leaving.test.ts',
    kind: 'timed',
    text: 'setTimeout(() => {',
    reason: 'the attack: clients leave 0-2 ms after asking, at varied moments of the answer',
  },
  {
    file: 'test/core/models/offload.test.ts',
    kind: 'timed',
    text: 'setTimeout(() => (turned = true), 0)',
    reason: 'a probe of whether the event loop turned',
  },
  // A bet that can only lose coverage, never fail: if a busy machine makes it land early, an abort
  // mid-request is refused the same way (AbortError, one request); no hook says the client is waiting.
  {
    file: 'test/clients/shared/http.test.ts',
    kind: 'timed',
    text: "caller.abort(new Error('caller left')), 100)",
    reason: 'the caller leaves while the client waits out the Retry-After',
  },
  {
    file: 'test/core/models/upstream-http.test.ts',
    kind: 'sleep',
    text: 'setTimeout(r, 20)',
    reason: 'the caller leaves during the 60 s backoff after the first answer',
  },
];

const ROOT = join(__dirname, '..', '..');
const sources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : /\.(ts|js|mjs)$/.test(e.name) ? [join(dir, e.name)] : [],
  );

describe('no wall clock in the tests', () => {
  // Not the scan itself; not the fixtures folders' programs, which tests run as processes to play a
  // scenario (their timers are the scenario's).
  const found: (Finding & { file: string })[] = sources(join(ROOT, 'test'))
    .filter((f) => !f.endsWith('wall-clock.ts') && !f.endsWith('no-wall-clock.test.ts') && !f.includes(`${sep}fixtures${sep}`))
    .flatMap((f) => scan(f, readFileSync(f, 'utf8')).map((x) => ({ ...x, file: relative(ROOT, f) })));
  const allows = (a: (typeof ALLOWED)[number], x: (typeof found)[number]) =>
    a.file === x.file && a.kind === x.kind && x.text.includes(a.text);

  it('asserts no elapsed time, and waits for events rather than for fixed times, except where the time is what is tested', () => {
    const unexplained = found.filter((x) => !ALLOWED.some((a) => allows(a, x))).map((x) => `${x.file}:${x.line} ${x.kind}: ${x.text}`);
    expect(unexplained).toEqual([]);
  });

  it('has no stale exception', () => {
    expect(ALLOWED.filter((a) => !found.some((x) => allows(a, x)))).toEqual([]);
  });
});

describe('what the scan finds', () => {
  const kinds = (src: string) => scan('x.test.ts', src).map((x) => x.kind);

  it('an assertion on elapsed time, read from the clock directly or through a name', () => {
    expect(kinds('const t0 = Date.now(); await f(); expect(Date.now() - t0).toBeLessThan(2000);')).toEqual(['bound']);
    expect(kinds('const t0 = performance.now(); await f(); const took = performance.now() - t0; expect(took).toBeLessThan(50);')).toEqual([
      'bound',
    ]);
    expect(kinds('const elapsed = measure(); expect(elapsed).not.toBeGreaterThan(10);')).toEqual(['bound']);
    expect(kinds('expect(res.body.length).toBeLessThan(10); expect(count).toBeGreaterThan(0);')).toEqual([]);
    expect(kinds('await eventually(() => seen(), 5000); await eventually(() => seen(), 20_000); await eventually(() => seen());')).toEqual([
      'bound',
    ]);
  });

  it('a fixed sleep, unless it paces a poll', () => {
    expect(kinds('await new Promise((r) => setTimeout(r, 300));')).toEqual(['sleep']);
    expect(kinds("import { setTimeout as sleep } from 'node:timers/promises'; await sleep(100);")).toEqual(['sleep']);
    expect(kinds('while (!done()) await new Promise((r) => setTimeout(r, 20));')).toEqual([]);
    expect(
      kinds("import { setTimeout as sleep } from 'node:timers/promises'; for (let i = 0; i < 9 && !ok(); i++) await sleep(100);"),
    ).toEqual([]);
    expect(kinds('await new Promise((r) => setImmediate(r));')).toEqual([]);
  });

  it('an action after a fixed delay, but not a deadline', () => {
    expect(kinds('setTimeout(() => leave.abort(), 50);')).toEqual(['timed']);
    expect(kinds("new Promise((resolve, reject) => { setTimeout(() => reject(new Error('no start')), 60_000); });")).toEqual([]);
    expect(kinds('const timer = setTimeout(() => child.kill(), 90_000); await exited;')).toEqual([]);
    expect(kinds("const timer = setTimeout(() => { out += 'overstayed'; }, 90_000); await exited; clearTimeout(timer);")).toEqual([]);
  });
});
