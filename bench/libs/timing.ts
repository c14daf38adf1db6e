/** Timing for `npm run bench:libs`: ours and a library's, interleaved in rounds on the same inputs. */
import { performance } from 'node:perf_hooks';

/** Operations per second of `op`, run back to back (each awaited) for at least `ms` and at least `min` times. */
export async function opsPerSec(op: () => unknown, ms: number, min = 3): Promise<number> {
  const started = performance.now();
  let n = 0;
  let elapsed = 0;
  while (n < min || elapsed < ms) {
    await op();
    n++;
    elapsed = performance.now() - started;
  }
  return (n * 1000) / elapsed;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Median ops/s of each side over `rounds` rounds, the sides alternating (ours first in even rounds), so drift hits both. */
export async function sideBySide(ours: () => unknown, theirs: () => unknown, rounds: number, ms: number): Promise<{ ours: number; theirs: number }> {
  const a: number[] = [];
  const b: number[] = [];
  for (let r = 0; r < rounds; r++) {
    if (r % 2 === 0) {
      a.push(await opsPerSec(ours, ms));
      b.push(await opsPerSec(theirs, ms));
    } else {
      b.push(await opsPerSec(theirs, ms));
      a.push(await opsPerSec(ours, ms));
    }
  }
  return { ours: median(a), theirs: median(b) };
}

/** A time per operation, in the unit that reads best. */
export function perOp(opsPerSecond: number): string {
  const us = 1e6 / opsPerSecond;
  return us >= 1000 ? `${(us / 1000).toFixed(us >= 10_000 ? 0 : 1)} ms` : `${us.toFixed(us >= 100 ? 0 : 1)} µs`;
}

/** theirs / ours in time: above 1 the library is slower. */
export const ratio = (r: { ours: number; theirs: number }) => `${(r.ours / r.theirs).toFixed(2)}x`;
