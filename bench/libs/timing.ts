/**
 * Timing for `npm run bench:libs`: ours and a library's, interleaved in rounds on the same inputs.
 * Each side gets the process's CPU time per operation (the steady figure on a shared machine, for
 * work done in this process) and its wall time per operation (for work a server does: Redis).
 */
import { performance } from 'node:perf_hooks';

export interface Cost {
  /** Wall-clock microseconds per operation. */
  wallUs: number;
  /** This process's CPU microseconds (user and system) per operation. */
  cpuUs: number;
}

const cpuNow = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

/** The cost of `op`, run back to back (each awaited) for at least `ms` and at least `min` times. */
export async function cost(op: () => unknown, ms: number, min = 3): Promise<Cost> {
  const started = performance.now();
  const cpu = cpuNow();
  let n = 0;
  let elapsed = 0;
  while (n < min || elapsed < ms) {
    await op();
    n++;
    elapsed = performance.now() - started;
  }
  return { wallUs: (elapsed * 1000) / n, cpuUs: (cpuNow() - cpu) / n };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const medianCost = (cs: Cost[]): Cost => ({ wallUs: median(cs.map((c) => c.wallUs)), cpuUs: median(cs.map((c) => c.cpuUs)) });

export interface Pair {
  ours: Cost;
  theirs: Cost;
}

/** Median cost of each side over `rounds` rounds, the sides alternating (ours first in even rounds), so drift hits both. */
export async function sideBySide(ours: () => unknown, theirs: () => unknown, rounds: number, ms: number): Promise<Pair> {
  const a: Cost[] = [];
  const b: Cost[] = [];
  for (let r = 0; r < rounds; r++) {
    if (r % 2 === 0) {
      a.push(await cost(ours, ms));
      b.push(await cost(theirs, ms));
    } else {
      b.push(await cost(theirs, ms));
      a.push(await cost(ours, ms));
    }
  }
  return { ours: medianCost(a), theirs: medianCost(b) };
}

/** A duration in microseconds, in the unit that reads best. */
export function us(x: number): string {
  return x >= 1000 ? `${(x / 1000).toFixed(x >= 10_000 ? 0 : 1)} ms` : `${x.toFixed(x >= 100 ? 0 : 1)} µs`;
}

/** theirs / ours: above 1 the library costs more. */
export const ratio = (p: Pair, of: keyof Cost) => `${(p.theirs[of] / p.ours[of]).toFixed(2)}x`;
