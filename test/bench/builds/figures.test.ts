import { compare, orderOf, pick, regressions, roundRatios, spread, type Paired, type Run } from '../../../bench/builds/figures';

const run = (rps: number, p50: number, extra: Partial<Run> = {}): Run => ({
  name: 'x',
  rps,
  requests: rps * 3,
  p50,
  p99: p50 * 3,
  non2xx: 0,
  errors: 0,
  badBodies: 0,
  codes: '',
  ...extra,
});
const paired = (before: Run[], after: Run[]): Paired => ({ scenario: 's', before, after });

describe('bench:builds figures: two builds, round by round', () => {
  // The machine slows down in rounds 3 and 4: both builds drop, their ratio holds.
  const before = [run(1000, 2), run(1000, 2), run(500, 4), run(400, 5), run(1000, 2)];
  const after = [run(980, 2.1), run(1010, 2), run(490, 4.1), run(396, 5), run(1000, 2)];

  it("a ratio is the median of the rounds' ratios, a build's figure the median of its rounds", () => {
    const c = compare(paired(before, after), pick.rps);
    // Ratios 0.98 1.01 0.98 0.99 1.00: median 0.99 (the ratio of the medians, 980/1000, differs when rounds drift).
    expect(c.ratio).toBeCloseTo(0.99, 10);
    expect(c.before).toBe(1000);
    expect(c.after).toBe(980);
  });

  it('a round without a figure on either side is left out, none at all gives NaN', () => {
    const noCpu = paired([run(1, 1), run(1, 1)], [run(1, 1), run(1, 1, { cpuMs: 2 })]);
    expect(roundRatios(noCpu, pick.cpuMs).every(Number.isNaN)).toBe(true);
    expect(compare(noCpu, pick.cpuMs).ratio).toBeNaN();
    const one = paired([run(1, 1, { cpuMs: 1 }), run(1, 1, { cpuMs: 1 })], [run(1, 1), run(1, 1, { cpuMs: 1.5 })]);
    expect(compare(one, pick.cpuMs).ratio).toBeCloseTo(1.5, 10);
  });

  it('flags fewer req/s or a slower p50 (or first chunk) beyond the tolerance, not less', () => {
    expect(regressions(paired(before, after), 0.05)).toEqual([]);
    const slower = [run(900, 2.4), run(880, 2.5), run(450, 4.8), run(360, 6), run(900, 2.4)];
    expect(regressions(paired(before, slower), 0.05)).toEqual(['req/s 0.900x', 'p50 1.200x']);
    const stream = (first: number) => [run(100, 30, { firstP50: first }), run(100, 30, { firstP50: first })];
    expect(regressions(paired(stream(10), stream(11)), 0.05)).toEqual(['first chunk p50 1.100x']);
    expect(regressions(paired(stream(10), stream(10.4)), 0.05)).toEqual([]);
  });

  it("flags more CPU per answer beyond the tolerance, and gives the rounds' spread", () => {
    const cpu = (ms: number) => [run(100, 1, { cpuMs: ms }), run(100, 1, { cpuMs: ms })];
    expect(regressions(paired(cpu(1), cpu(1.2)), 0.05)).toEqual(['CPU/answer 1.200x']);
    expect(regressions(paired(cpu(1), cpu(1.04)), 0.05)).toEqual([]);
    expect(spread(paired(before, after), pick.rps)).toEqual([0.98, 1.01]);
    expect(spread(paired([run(1, 1)], [run(1, 1)]), pick.cpuMs).every(Number.isNaN)).toBe(true);
  });

  it('alternates which build goes first', () => {
    expect([0, 1, 2, 3].map(orderOf)).toEqual([
      ['before', 'after'],
      ['after', 'before'],
      ['before', 'after'],
      ['after', 'before'],
    ]);
  });
});
