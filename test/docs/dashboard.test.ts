import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { prometheusMetrics } from '../../core/shared/telemetry/prometheus';
import { sourceFiles } from '../shared/import-graph';
import { KNOWN_METRICS, NODE_METRICS, PLATFORM_METRICS, problemsOf, readPromql } from './promql';

/**
 * docs/grafana-dashboard.json, docs/observability.md and docs/deploy/prometheus.yml against the
 * metrics the platform declares: every query names only metrics of the list in ./promql.ts (the
 * telemetry contract) with their labels, the list matches what the code declares, and the
 * dashboard has what Grafana needs to import it.
 */
const ROOT = join(__dirname, '..', '..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

interface Target {
  refId?: string;
  expr?: string;
  datasource?: { type?: string; uid?: string };
}
interface Panel {
  id?: number;
  type?: string;
  title?: string;
  gridPos?: { h?: number; w?: number; x?: number; y?: number };
  datasource?: { type?: string; uid?: string };
  targets?: Target[];
  panels?: Panel[];
}
interface Variable {
  name?: string;
  type?: string;
  query?: unknown;
  datasource?: { uid?: string };
  definition?: string;
}
interface Dashboard {
  title?: string;
  uid?: string;
  schemaVersion?: number;
  panels?: Panel[];
  templating?: { list?: Variable[] };
}

const dashboard = JSON.parse(read('docs/grafana-dashboard.json')) as Dashboard;
/** Every panel, those inside collapsed rows too. */
const panels = (dashboard.panels ?? []).flatMap((p) => [p, ...(p.panels ?? [])]);
const queried = panels.filter((p) => p.type !== 'row');
const exprs = queried.flatMap((p) => (p.targets ?? []).map((t) => ({ panel: p.title, expr: t.expr ?? '' })));
const DATASOURCE = '${datasource}';

describe('docs/grafana-dashboard.json', () => {
  it('has what Grafana needs to import it: a title, a uid, a schema version, panels, a Prometheus datasource variable', () => {
    expect(typeof dashboard.title).toBe('string');
    expect(dashboard.uid).toMatch(/^[A-Za-z0-9_-]{1,40}$/);
    expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(36);
    expect(queried.length).toBeGreaterThan(20);
    const vars = dashboard.templating?.list ?? [];
    expect(vars.find((v) => v.name === 'datasource')).toMatchObject({ type: 'datasource', query: 'prometheus' });
    // Other variables query through it, and only known metrics.
    for (const v of vars.filter((x) => x.type === 'query')) {
      expect(v.datasource?.uid).toBe(DATASOURCE);
      const metric = /^label_values\((\w+),\s*(\w+)\)$/.exec(v.definition ?? '');
      expect(metric && KNOWN_METRICS[metric[1].replace(/_count$/, '')]).toBeTruthy();
    }
  });

  it('places every panel on the 24-column grid, with a unique id', () => {
    const ids = panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const p of panels) {
      const g = p.gridPos ?? {};
      expect({
        title: p.title,
        ok: [g.h, g.w, g.x, g.y].every((n) => Number.isInteger(n) && n! >= 0) && g.w! > 0 && g.x! + g.w! <= 24,
      }).toEqual({ title: p.title, ok: true });
    }
  });

  it('gives every panel a title and queries through the datasource variable, each target with an expression', () => {
    for (const p of queried) {
      expect(p.title).toBeTruthy();
      expect(p.datasource).toEqual({ type: 'prometheus', uid: DATASOURCE });
      expect(p.targets?.length).toBeGreaterThan(0);
      const refIds = p.targets!.map((t) => t.refId);
      expect(new Set(refIds).size).toBe(refIds.length);
      for (const t of p.targets!) {
        expect(t.datasource?.uid).toBe(DATASOURCE);
        expect(typeof t.expr === 'string' && t.expr.trim().length > 0).toBe(true);
      }
    }
  });

  it('names only metrics of the list, each with labels it has', () => {
    const bad = exprs.map(({ panel, expr }) => ({ panel, problems: problemsOf(expr) })).filter((e) => e.problems.length);
    expect(bad).toEqual([]);
  });

  it('shows every metric the platform declares', () => {
    const shown = new Set(exprs.flatMap(({ expr }) => readPromql(expr).metrics.map((s) => s.replace(/_(bucket|sum|count)$/, ''))));
    expect(Object.keys(PLATFORM_METRICS).filter((name) => !shown.has(name))).toEqual([]);
  });
});

describe('the metric list of the dashboard test', () => {
  it('holds every platform_ metric the code declares, with the labels it declares', () => {
    const files = sourceFiles(ROOT, ['core', 'edge', 'rest', 'subgraphs', 'gateway', 'services', 'bin']);
    const declared: { name: string; labels?: string[]; file: string }[] = [];
    for (const file of files) {
      const text = read(file);
      for (const hit of text.matchAll(/name:\s*'(platform_[a-z0-9_]+)'/g)) {
        // The declaration's own labels, when written as a literal list beside the name.
        const rest = text.slice(hit.index + hit[0].length);
        const own = rest.slice(0, Math.min(...[rest.indexOf('name:'), rest.indexOf('});'), 600].filter((n) => n >= 0)));
        const list = /labels:\s*\[([^\]]*)\]/.exec(own);
        declared.push({ name: hit[1], file, labels: list ? [...list[1].matchAll(/'([^']+)'/g)].map((l) => l[1]) : undefined });
      }
    }
    // The foundation's at least: the HTTP histogram, streams, the DB pool, Redis.
    expect(declared.length).toBeGreaterThanOrEqual(4);
    const unknown = declared.filter((d) => !PLATFORM_METRICS[d.name]).map((d) => `${d.name} (${d.file})`);
    expect(unknown).toEqual([]);
    const relabelled = declared
      .filter((d) => d.labels && [...d.labels].sort().join() !== [...PLATFORM_METRICS[d.name].labels].sort().join())
      .map((d) => `${d.name} (${d.file}): ${d.labels!.join(', ')}`);
    expect(relabelled).toEqual([]);
  });

  it("names Node's figures as prom-client exposes them", async () => {
    const { registry } = prometheusMetrics({ maxTenants: 1 });
    const exposed = new Set((await registry.getMetricsAsJSON()).map((x) => x.name));
    expect(Object.keys(NODE_METRICS).filter((name) => !exposed.has(name))).toEqual([]);
  });
});

describe('docs/observability.md', () => {
  const doc = read('docs/observability.md');
  const blocks = (lang: string) => [...doc.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((b) => b[1]);

  it('documents every platform metric', () => {
    expect(Object.keys(PLATFORM_METRICS).filter((name) => !doc.includes(`\`${name}\``))).toEqual([]);
  });

  it('queries only metrics of the list in its examples and alert rules', () => {
    const examples = blocks('promql')
      .flatMap((b) => b.split('\n').filter((l) => l.trim() && !l.trim().startsWith('#')))
      // An expression continued on the next line ("/ sum ...") is read whole.
      .reduce<string[]>(
        (all, line) => (/^\s*[/*+-]/.test(line) && all.length ? [...all.slice(0, -1), `${all.at(-1)} ${line}`] : [...all, line]),
        [],
      );
    const rules = blocks('yaml').flatMap((b) => [...b.matchAll(/^\s*expr:\s*(.+)$/gm)].map((e) => e[1]));
    expect(examples.length).toBeGreaterThan(8);
    expect(rules.length).toBeGreaterThan(4);
    const bad = [...examples, ...rules].map((expr) => ({ expr, problems: problemsOf(expr) })).filter((e) => e.problems.length);
    expect(bad).toEqual([]);
  });
});

describe('docs/deploy/prometheus.yml', () => {
  // js-yaml (a dev dependency) comes without types of its own.
  const yaml = require('js-yaml') as { load(text: string): unknown };
  const config = yaml.load(read('docs/deploy/prometheus.yml')) as {
    global?: { scrape_interval?: string };
    scrape_configs?: {
      job_name?: string;
      metrics_path?: string;
      static_configs?: { targets?: string[]; labels?: Record<string, string> }[];
    }[];
  };

  it('parses, and every job scrapes /metrics on host:port targets', () => {
    expect(config.global?.scrape_interval).toMatch(/^\d+[smh]$/);
    const jobs = config.scrape_configs ?? [];
    expect(jobs.length).toBeGreaterThan(0);
    expect(new Set(jobs.map((j) => j.job_name)).size).toBe(jobs.length);
    for (const job of jobs) {
      expect(job.job_name).toMatch(/^[a-z0-9-]+$/);
      expect(job.metrics_path ?? '/metrics').toBe('/metrics');
      const targets = (job.static_configs ?? []).flatMap((s) => s.targets ?? []);
      expect(targets.length).toBeGreaterThan(0);
      for (const t of targets) expect(t).toMatch(/^[\w.-]+:\d{2,5}$/);
    }
  });
});
