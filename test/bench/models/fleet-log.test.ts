import { failoverFigures, percentile, type CallResult, type FakeEvent } from '../../../bench/models/fleet-log';
import { overheadLines, overheadRatios } from '../../../bench/models/overhead';
import type { Latency } from '../../../bench/models/latency';

const ev = (deployment: number, marker: string, receivedAt: number, endedAt: number, outcome: FakeEvent['outcome'] = 'ok'): FakeEvent => ({
  deployment,
  marker,
  receivedAt,
  endedAt,
  outcome,
});
const ok = (marker: string): CallResult => ({ marker, status: 200, ok: true });
/** The callers of these attempts, all answered. */
const callsOf = (events: FakeEvent[]) => [...new Set(events.map((e) => e.marker))].map(ok);

describe('percentile (nearest rank)', () => {
  it('reads p50 and p99 of an ascending list, NaN of an empty one', () => {
    const values = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(values, 0.5)).toBe(50);
    expect(percentile(values, 0.99)).toBe(99);
    expect(percentile([7], 0.99)).toBe(7);
    expect(percentile([], 0.5)).toBeNaN();
  });
});

describe('the failover figures drawn from the fakes log', () => {
  const window = { failing: 0, faultAt: 1000, healAt: 3000 as number | undefined, until: 5000, settleMs: 1000 };

  it('measures the fallback from the failing answer to the next deployment receiving the same call', () => {
    const events = [
      ev(0, 'a', 900, 901),
      ev(0, 'b', 1010, 1012, '500'),
      ev(1, 'b', 1015, 1016),
      ev(0, 'c', 1020, 1021, '500'),
      ev(2, 'c', 1061, 1062),
    ];
    const f = failoverFigures([ok('a'), ok('b'), ok('c')], events, window);
    expect(f.firstFallbackMs).toBe(3);
    expect(f.fallbackGaps).toEqual([3, 40]);
    expect(f.attemptsMean).toBeCloseTo(5 / 3);
    expect(f.attemptsMax).toBe(2);
    expect(f.callerErrors).toBe(0);
  });

  it('reads only the attempts of its own calls', () => {
    const events = [ev(0, 'a', 1010, 1012, '500'), ev(1, 'a', 1015, 1016), ev(0, 'other', 1020, 1021, '500'), ev(2, 'other', 1030, 1031)];
    const f = failoverFigures([ok('a')], events, window);
    expect(f.fallbackGaps).toEqual([3]);
    expect(f.attemptsTotal).toBe(2);
  });

  it('does not count a retry on the same deployment as a fallback', () => {
    const f = failoverFigures([ok('a')], [ev(0, 'a', 1010, 1011, '500'), ev(0, 'a', 1200, 1201)], window);
    expect(f.fallbackGaps).toEqual([]);
    expect(f.firstFallbackMs).toBeNaN();
  });

  it('counts the errors callers saw by status', () => {
    const calls: CallResult[] = [
      ok('a'),
      { marker: 'b', status: 503, ok: false },
      { marker: 'c', status: 503, ok: false },
      { marker: 'd', status: 0, ok: false },
    ];
    const f = failoverFigures(calls, [], window);
    expect(f.callerErrors).toBe(3);
    expect(f.errorStatuses).toBe('2×503 1×0');
    expect(f.attemptsMax).toBe(0);
  });

  it("finds the longest pause in the failing deployment's traffic during the fault, to its end", () => {
    const events = [
      ev(0, 'a', 1010, 1011, '500'),
      ev(0, 'b', 1020, 1021, '500'),
      ev(0, 'c', 1030, 1031, '500'),
      ev(0, 'd', 2031, 2032, '500'),
    ];
    // 1031 → 2031 in the fault, then 2032 → 3000 (the fault's end).
    expect(failoverFigures(callsOf(events), events, window).longestPauseMs).toBe(1000);
    expect(failoverFigures(callsOf(events), events, { ...window, healAt: 4000 }).longestPauseMs).toBe(4000 - 2032);
    // Never tried during the fault: the whole fault.
    expect(failoverFigures(callsOf([]), [], window).longestPauseMs).toBe(2000);
    expect(failoverFigures(callsOf(events), events, window).failingHits).toBe(4);
    expect(failoverFigures(callsOf([]), [], window).failingHits).toBe(0);
  });

  it('counts the attempts at the failing deployment after its first failing answer had time to settle', () => {
    const events = [ev(0, 'a', 1010, 1020, '429'), ev(0, 'b', 1050, 1051, '429'), ev(0, 'c', 1500, 1501, '429'), ev(1, 'c', 1502, 1503)];
    expect(failoverFigures(callsOf(events), events, { ...window, healAt: undefined, settleMs: 100 }).lateAttempts).toBe(1);
    expect(
      failoverFigures(callsOf(events.slice(0, 2)), events.slice(0, 2), { ...window, healAt: undefined, settleMs: 100 }).lateAttempts,
    ).toBe(0);
  });

  it('measures when the failing deployment answered well again after the fault ended', () => {
    const events = [ev(0, 'a', 2990, 2991, '500'), ev(0, 'b', 3100, 3101, '500'), ev(0, 'c', 3400, 3401)];
    expect(failoverFigures(callsOf(events), events, window).backAfterHealMs).toBe(400);
    expect(failoverFigures(callsOf([]), [], window).backAfterHealMs).toBeNaN();
  });
});

describe('the gateway against the bare proxy', () => {
  const lat = (name: string, p50: number, p99: number): Latency => ({
    name,
    whole: [],
    first: [],
    n: 1,
    p50,
    p99,
    ttfb50: p50,
    ttfb99: p99,
  });

  it('divides total latencies for the goal, and what each adds over the direct call beside it', () => {
    const direct = lat('direct', 0.4, 1);
    const bare = lat('bare proxy', 0.6, 1.5);
    const gateway = lat('gateway', 1.4, 3.0);
    const [p50, p99] = overheadRatios(direct, bare, gateway, { direct, bare, gateway });
    expect(p50.total).toBeCloseTo(1.4 / 0.6);
    expect(p50.added).toBeCloseTo(5);
    expect(p99.total).toBeCloseTo(2);
    const lines = overheadLines([p50, p99]);
    expect(lines[0]).toMatch(/p50 at most 2x the bare proxy's: 2\.33x: NOT MET/);
    expect(lines[1]).toMatch(/p99 at most 3x the bare proxy's: 2\.00x: met/);
  });

  it('gives no added ratio when the bare proxy added nothing measurable', () => {
    const direct = lat('direct', 1, 1);
    const [p50] = overheadRatios(direct, direct, lat('gateway', 2, 2), { direct, bare: direct, gateway: direct });
    expect(p50.added).toBeNaN();
    expect(overheadLines([p50])[0]).toMatch(/gateway n\/a the bare proxy's/);
  });
});
