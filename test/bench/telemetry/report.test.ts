import type { Measured } from '../../../bench/shared/load';
import { everyTrace, paired, targets, type Cell } from '../../../bench/telemetry/report';

const run = (rps: number, cpuMs?: number): Measured => ({
  name: 'x',
  rps,
  requests: rps * 3,
  p50: 1,
  p99: 2,
  non2xx: 0,
  errors: 0,
  badBodies: 0,
  codes: '',
  ...(cpuMs === undefined ? {} : { cpuMs }),
});
const cell = (setup: Cell['setup'], runs: Measured[]): Cell => ({ endpoint: 'q', setup, setupName: `(${setup})`, runs });

describe('bench:telemetry report: ratios round by round', () => {
  // The machine slows down in rounds 3 and 4: both setups drop, their ratio holds.
  const base = cell('a', [run(1000, 0.5), run(1000, 0.5), run(500, 1), run(400, 1.2), run(1000, 0.5)]);
  const traced = cell('c', [run(900, 0.55), run(880, 0.56), run(460, 1.1), run(350, 1.3), run(920, 0.54)]);

  it("is the median of each round's ratio to the baseline's run of that round", () => {
    // Ratios 0.9 0.88 0.92 0.875 0.92: median 0.9 (the ratio of the medians, 900/1000 here, can differ when rounds drift).
    expect(paired(traced, base, (m) => m.rps)).toBeCloseTo(0.9, 10);
    expect(paired(traced, base, (m) => m.cpuMs)).toBeCloseTo(1.1, 10);
  });

  it('a round without a figure on either side is left out, and none at all gives NaN', () => {
    const noCpu = cell('b', [run(900), run(900)]);
    expect(paired(noCpu, base, (m) => m.cpuMs)).toBeNaN();
    expect(paired(cell('b', [run(900), run(950, 0.5)]), base, (m) => m.cpuMs)).toBeCloseTo(1, 10);
  });

  it("judges the targets on that ratio and prints each round's", () => {
    const lines = targets([base, cell('b', [run(960), run(940), run(480), run(390), run(970)]), traced]);
    expect(lines[1]).toMatch(/\(b\): 0\.960x .*rounds: 0\.960x 0\.940x 0\.960x 0\.975x 0\.970x.*: met;/);
    expect(lines[2]).toMatch(/\(c\): 0\.900x .*at most 15 % slower\): met;/);
    const slow = targets([base, cell('c', [run(800), run(840), run(400), run(300), run(800)])]);
    expect(slow[1]).toMatch(/\(c\): 0\.800x .*NOT MET/);
  });
});

describe('bench:telemetry span check: which samplers record every trace', () => {
  it('the default (none set), always_on and parentbased_always_on do; a ratio or always_off does not', () => {
    expect([undefined, 'always_on', 'parentbased_always_on'].map(everyTrace)).toEqual([true, true, true]);
    expect(['parentbased_traceidratio', 'traceidratio', 'always_off', 'parentbased_always_off'].map(everyTrace)).toEqual([
      false,
      false,
      false,
      false,
    ]);
  });
});
