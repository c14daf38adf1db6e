/** Markdown tables and number formats for the search benches (pasteable as is). */
export const fixed = (v: number | undefined, digits = 2) => (v !== undefined && Number.isFinite(v) ? v.toFixed(digits) : 'n/a');
export const whole = (v: number | undefined) => (v !== undefined && Number.isFinite(v) ? Math.round(v).toLocaleString('en-US') : 'n/a');
export const verdict = (ok: boolean | undefined) => (ok === undefined ? 'not measured' : ok ? 'met' : 'NOT MET');

/** The first `left` columns left-aligned (labels, prose), the others right-aligned (numbers). */
export function markdownTable(head: string[], rows: string[][], left = 1): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    `| ${head.map((_, i) => (i < left ? (cells[i] ?? '').padEnd(widths[i]) : (cells[i] ?? '').padStart(widths[i]))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (i < left ? `${'-'.repeat(w + 1)}-` : `${'-'.repeat(w + 1)}:`)).join('|')}|`;
  return [line(head), rule, ...rows.map(line)].join('\n');
}

/**
 * Progress on stderr: one line rewritten in place on a terminal, else a line every `everyMs` (5 s
 * when not a terminal), so logs stay short.
 */
export function progress(label: string, total: number, everyMs = process.stderr.isTTY ? 1000 : 5000) {
  const started = Date.now();
  let last = started;
  return (done: number, extra = '') => {
    const now = Date.now();
    if (done < total && now - last < everyMs) return;
    last = now;
    const secs = (now - started) / 1000;
    const rate = secs > 0 ? done / secs : 0;
    const text = `${label}: ${done}/${total} in ${secs.toFixed(1)} s (${rate.toFixed(0)}/s)${extra}`;
    if (process.stderr.isTTY) process.stderr.write(`\r${text}   ${done >= total ? '\n' : ''}`);
    else process.stderr.write(`${text}\n`);
  };
}
