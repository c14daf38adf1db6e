import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

/** Series colours, readable on the light and the dark background; `.chart-swatch-<i>` in styles.css match them. */
export const PALETTE = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#e377c2', '#8c564b', '#17becf', '#7f7f7f'];

export interface ChartSeries {
  label: string;
  values: number[];
}

/** How a chart's values read: counts (the default) or US dollars, whose axis says `$` and keeps cents in view. */
export type ChartUnit = 'count' | 'usd';

const usdAxis = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', maximumSignificantDigits: 3 });

/**
 * A line chart of values per UTC day drawn with uPlot on a canvas, as wide as its container (it
 * follows resizes). The canvas is an image to assistive technology (`label`); the page gives the
 * numbers in a table too. uPlot's own legend is off: the chart's legend is a list whose swatches
 * are classes, so nothing needs a style attribute (the console's policy has no 'unsafe-inline').
 */
export function DayChart({
  title,
  label,
  days,
  series,
  unit = 'count',
}: {
  title: string;
  label: string;
  days: string[];
  series: ChartSeries[];
  unit?: ChartUnit;
}) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const css = getComputedStyle(document.documentElement);
    const fg = css.getPropertyValue('--muted').trim() || '#57606a';
    const line = css.getPropertyValue('--line').trim() || '#d0d7de';
    const axis = { stroke: fg, grid: { stroke: line, width: 1 }, ticks: { stroke: line, width: 1 } };
    const x = days.map((d) => Date.parse(`${d}T00:00:00Z`) / 1000);
    const size = () => ({ width: Math.max(200, Math.floor(el.clientWidth)), height: el.clientWidth < 500 ? 200 : 260 });
    const plot = new uPlot(
      {
        ...size(),
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
        legend: { show: false },
        cursor: { drag: { x: false, y: false } },
        // Counts start at a top of 1; dollars at a cent, so a day of small calls is not a flat line.
        scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(unit === 'usd' ? 0.01 : 1, max * 1.1)] } },
        axes: [
          axis,
          { ...axis, size: 60, ...(unit === 'usd' && { values: (_u: uPlot, ticks: number[]) => ticks.map((t) => usdAxis.format(t)) }) },
        ],
        series: [
          {},
          ...series.map((s, i) => ({
            label: s.label,
            stroke: PALETTE[i % PALETTE.length],
            width: 2,
            points: { show: days.length <= 62, size: 5 },
          })),
        ],
      },
      [x, ...series.map((s) => s.values)],
      el,
    );
    const seen = new ResizeObserver(() => plot.setSize(size()));
    seen.observe(el);
    return () => {
      seen.disconnect();
      plot.destroy();
    };
  }, [days, series, unit]);
  return (
    <figure className="chart">
      <figcaption className="chart-title">{title}</figcaption>
      <div className="chart-canvas" ref={box} role="img" aria-label={label} />
      <ul className="chart-legend" aria-label={`${title}: series`}>
        {series.map((s, i) => (
          <li key={s.label}>
            <span className={`chart-swatch chart-swatch-${i % PALETTE.length}`} aria-hidden="true" />
            {s.label}
          </li>
        ))}
      </ul>
    </figure>
  );
}
