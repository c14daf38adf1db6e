import { boundedLabel, noMetrics } from '../../../../core/shared/telemetry/metrics';
import { prometheusMetrics } from '../../../../core/shared/telemetry/prometheus';
import { parseMetrics } from '../../../shared/telemetry';

describe('the Metrics port over prom-client', () => {
  it('records counters, histograms and gauges into its own registry, in the exposition format', async () => {
    const m = prometheusMetrics({ maxTenants: 5 });
    const calls = m.counter({ name: 'demo_calls_total', help: 'Calls', labels: ['kind'] });
    calls.inc({ kind: 'a' });
    calls.inc({ kind: 'a' }, 2);
    m.histogram({ name: 'demo_seconds', help: 'Time', labels: ['kind'] }).observe({ kind: 'a' }, 0.2);
    const open = m.gauge({ name: 'demo_open', help: 'Open', labels: [] });
    open.inc({});
    open.inc({});
    open.dec({});
    const s = parseMetrics(await m.registry.metrics());
    expect(s.total('demo_calls_total', { kind: 'a' })).toBe(3);
    expect(s.total('demo_seconds', { kind: 'a' })).toBe(1);
    expect(s.total('demo_open')).toBe(1);
    // Node's own figures come along.
    expect(s.has('nodejs_eventloop_lag_p99_seconds')).toBe(true);
  });

  it('declaring a metric twice gives the first (two faces of one process share a name)', () => {
    const m = prometheusMetrics({ maxTenants: 5 });
    const a = m.counter({ name: 'demo_total', help: 'x', labels: ['k'] });
    expect(m.counter({ name: 'demo_total', help: 'x', labels: ['k'] })).toBe(a);
  });

  it('two platforms in one process keep apart', async () => {
    const one = prometheusMetrics({ maxTenants: 5 });
    const two = prometheusMetrics({ maxTenants: 5 });
    one.counter({ name: 'demo_total', help: 'x' }).inc({});
    expect(parseMetrics(await two.registry.metrics()).has('demo_total')).toBe(false);
  });

  it('reads collected gauges on each scrape', async () => {
    const m = prometheusMetrics({ maxTenants: 5 });
    let size = 3;
    m.gauge({ name: 'demo_size', help: 'x', collect: (g) => g.set({}, size) });
    expect(parseMetrics(await m.registry.metrics()).total('demo_size')).toBe(3);
    size = 7;
    expect(parseMetrics(await m.registry.metrics()).total('demo_size')).toBe(7);
  });

  it('bounds tenant labels: the first N tenants are themselves, the rest `other`; 0 means no tenant label', () => {
    const m = prometheusMetrics({ maxTenants: 2 });
    expect(['t1', 't2', 't3', 't1', 't4'].map(m.tenant)).toEqual(['t1', 't2', 'other', 't1', 'other']);
    expect(prometheusMetrics({ maxTenants: 0 }).tenant('t1')).toBe('all');
  });

  it('bounded labels are per kind, and keep at most max distinct values however many arrive', () => {
    const label = boundedLabel(200);
    const seen = new Set(Array.from({ length: 10_000 }, (_, i) => label(`op${i}`)));
    expect(seen.size).toBe(201);
    expect(seen.has('other')).toBe(true);
    const m = prometheusMetrics({ maxTenants: 1 });
    expect(m.bounded('a', 1)('x')).toBe('x');
    expect(m.bounded('b', 1)('y')).toBe('y');
    expect(m.bounded('a', 1)('y')).toBe('other');
  });

  it('noMetrics records nothing and accepts every call', () => {
    noMetrics.counter({ name: 'x_total', help: 'x' }).inc({}, 1);
    noMetrics.histogram({ name: 'x_seconds', help: 'x' }).observe({}, 1);
    noMetrics.gauge({ name: 'x', help: 'x' }).set({}, 1);
    expect(noMetrics.tenant('t')).toBe('t');
  });
});
