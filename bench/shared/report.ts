/** The results table of `npm run bench` (Markdown, so it can be pasted as is). */
import type { Measured } from './load';

const ms = (v: number) => (Number.isFinite(v) ? v.toFixed(2) : 'n/a');
const num = (v: number) => (Number.isFinite(v) ? Math.round(v).toString() : 'n/a');
const ratio = (v: number, base: number) => {
  const r = v / base;
  if (!Number.isFinite(r)) return 'n/a';
  return `${r < 10 ? r.toFixed(2) : r.toFixed(1)}x`;
};

export function table(rows: Measured[], baseline: Measured | undefined): string {
  const head = [
    'endpoint',
    'req/s',
    'p50 ms',
    'p99 ms',
    'server CPU ms/req',
    'non-2xx',
    'conn errors',
    'bad bodies',
    'req/s vs baseline',
    'p50 vs baseline',
    'p99 vs baseline',
  ];
  const body = rows.map((r) => [
    r.name,
    num(r.rps),
    ms(r.p50),
    ms(r.p99),
    r.cpuMs === undefined ? 'n/a' : r.cpuMs.toFixed(3),
    String(r.non2xx),
    String(r.errors),
    String(r.badBodies),
    baseline ? ratio(r.rps, baseline.rps) : 'n/a',
    baseline ? ratio(r.p50, baseline.p50) : 'n/a',
    baseline ? ratio(r.p99, baseline.p99) : 'n/a',
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((row) => row[i].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (i === 0 ? `${'-'.repeat(w + 1)}-` : `${'-'.repeat(w + 1)}:`)).join('|')}|`;
  return [line(head), rule, ...body.map(line)].join('\n');
}

/** Why a run does not count as clean, or undefined when it does. */
export function problems(r: Measured): string | undefined {
  const bad: string[] = [];
  if (r.non2xx) bad.push(`${r.non2xx} non-2xx responses (status codes ${r.codes})`);
  if (r.errors) bad.push(`${r.errors} connection errors/timeouts`);
  if (r.badBodies) bad.push(`${r.badBodies} responses without the expected body`);
  if (r.requests === 0) bad.push('no completed requests');
  return bad.length ? `${r.name}: ${bad.join('; ')}` : undefined;
}

/**
 * The platform's targets against this run's figures. Printed only: the exit code does not depend
 * on them, so a run that misses them still reports its figures honestly.
 */
export function targetsBlock(
  warm: Measured | undefined,
  cold: Measured | undefined,
  peer: Measured | undefined,
  signatureMs?: number,
): string {
  const verdict = (ok: boolean | undefined) => (ok === undefined ? 'not measured' : ok ? 'met' : 'NOT MET');
  const lines = ['targets (reported only; they do not change the exit code):'];
  const rps = warm && peer ? warm.rps / peer.rps : Number.NaN;
  lines.push(
    `  client credentials req/s, platform / peer: ${warm ? num(warm.rps) : 'n/a'} / ${peer ? num(peer.rps) : 'n/a'} = ` +
      `${ratio(rps, 1)} (target >= 1.5x): ${verdict(Number.isFinite(rps) ? rps >= 1.5 : undefined)}`,
  );
  const p99 = warm && cold ? cold.p99 / warm.p99 : Number.NaN;
  lines.push(
    `  client credentials p99, platform cold / warm: ${cold ? ms(cold.p99) : 'n/a'} / ${warm ? ms(warm.p99) : 'n/a'} ms = ` +
      `${ratio(p99, 1)} (target <= 3x): ${verdict(Number.isFinite(p99) ? p99 <= 3 : undefined)}`,
  );
  if (signatureMs !== undefined && warm?.cpuMs !== undefined && peer?.cpuMs !== undefined) {
    // Throughput at full CPU is cores / (CPU per request): the ratio of CPU per request is the ratio a
    // saturated run converges to, and no RS256 issuer can spend less than one signature per token.
    lines.push(
      `  CPU per token: platform ${warm.cpuMs.toFixed(3)} ms, peer ${peer.cpuMs.toFixed(3)} ms (ratio ${ratio(peer.cpuMs / warm.cpuMs, 1)}); ` +
        `one RS256 signature costs ${signatureMs.toFixed(3)} ms of CPU here, so no RS256 issuer can exceed ` +
        `${ratio(peer.cpuMs / signatureMs, 1)} the peer on this machine`,
    );
  }
  return lines.join('\n');
}
