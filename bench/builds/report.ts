/** The table and lines `npm run bench:builds` prints (Markdown, pasteable as is). */
import { fixed, markdownTable } from '../shared/progress';
import { compare, pick, regressions, roundRatios, spread, type Paired, type Pick } from './figures';

const times = (r: number) => (Number.isFinite(r) ? `${r.toFixed(2)}x` : 'n/a');

/** before, after, after/before of one figure. */
const cells = (p: Paired, f: Pick, digits: number) => {
  const c = compare(p, f);
  return [fixed(c.before, digits), fixed(c.after, digits), times(c.ratio)];
};

export function table(all: Paired[]): string {
  const head = [
    'scenario',
    'before req/s',
    'after req/s',
    'req/s after/before',
    'before p50 ms',
    'after p50 ms',
    'p50 after/before',
    'before p99 ms',
    'after p99 ms',
    'p99 after/before',
    'before CPU ms/req',
    'after CPU ms/req',
    'CPU after/before',
  ];
  const rows = all.flatMap((p) => {
    const row = [p.scenario, ...cells(p, pick.rps, 0), ...cells(p, pick.p50, 2), ...cells(p, pick.p99, 2), ...cells(p, pick.cpuMs, 3)];
    if (!p.before.some((r) => r.firstP50 !== undefined)) return [row];
    const first = [`${p.scenario}: first chunk`, '', '', '', ...cells(p, pick.firstP50, 2), ...cells(p, pick.firstP99, 2), '', '', ''];
    return [[`${p.scenario}: whole answer`, ...row.slice(1)], first];
  });
  return markdownTable(head, rows);
}

/** Each scenario's req/s and CPU per answer, after/before round by round, so the noise shows. */
export const roundLines = (all: Paired[]): string[] =>
  all.map(
    (p) =>
      `  ${p.scenario}: req/s ${roundRatios(p, pick.rps).map(times).join(' ')}; CPU/answer ${roundRatios(p, pick.cpuMs).map(times).join(' ')}`,
  );

/**
 * The verdict per scenario, reported only (the exit code does not depend on it). Where req/s's
 * rounds straddle 1.00x by more than the tolerance on both sides, the machine moved the figures
 * more than the tolerance: said so, since a flag is then as likely the machine as the change.
 */
export function verdicts(all: Paired[], tolerance: number): string[] {
  return all.map((p) => {
    const bad = regressions(p, tolerance);
    const [lo, hi] = spread(p, pick.rps);
    const noisy =
      lo < 1 - tolerance && hi > 1 + tolerance
        ? `; req/s rounds from ${times(lo)} to ${times(hi)}: the machine moved them more than that`
        : '';
    return `  ${p.scenario}: ${bad.length ? `REGRESSION? ${bad.join(', ')}` : 'no regression'}${noisy}`;
  });
}
