import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openModelsCore, type ModelsCore } from '../../../../core/models';
import { sqliteModelsStores } from '../../../../core/models/sqlite';
import { prometheusMetrics, type PrometheusMetrics } from '../../../../core/shared/telemetry/prometheus';
import { callStatus } from '../../../../edge/http/call-status';
import { testClock } from '../../../shared/helpers';

/** A model with two deployments (the offline provider behind both) and one with only its upstream. */
const MODELS = [
  {
    id: 'two-deployments',
    group: 'A',
    contextLength: 8192,
    deployments: [
      { id: 'east', upstream: { provider: 'local' } },
      { id: 'west', upstream: { provider: 'local' }, weight: 2 },
    ],
  },
  { id: 'one-upstream', group: 'A', contextLength: 8192, upstream: { provider: 'local' } },
];

/** The series of a metric, by its `model/deployment` labels. */
async function series(m: PrometheusMetrics, name: string): Promise<Record<string, number>> {
  const metric = m.registry.getSingleMetric(name);
  const out: Record<string, number> = {};
  for (const v of (await metric!.get()).values) out[`${String(v.labels.model)}/${String(v.labels.deployment)}`] = v.value;
  return out;
}

describe("the deployments' health in the core and its metrics", () => {
  let dir: string;
  let core: ModelsCore;
  let metrics: PrometheusMetrics;
  const clock = testClock(Date.UTC(2026, 5, 1));
  const policy = { failures: 2, windowSeconds: 60, seconds: 30 };

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'health-metrics-'));
    const catalogFile = join(dir, 'catalog.json');
    writeFileSync(catalogFile, JSON.stringify({ models: MODELS }));
    metrics = prometheusMetrics({ maxTenants: 2 });
    core = openModelsCore({ stores: sqliteModelsStores(':memory:'), catalogFile, metrics, statusOf: callStatus, clock });
  });
  afterAll(async () => {
    await core.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("names every deployment of the catalog, a model's upstream as its deployment `default`", () => {
    expect(core.deployments()).toEqual(
      expect.arrayContaining([
        { model: 'two-deployments', deployment: 'east' },
        { model: 'two-deployments', deployment: 'west' },
        { model: 'one-upstream', deployment: 'default' },
      ]),
    );
  });

  it('counts a deployment entering cooldown once, and shows it cooling and its calls in flight at scrape time', async () => {
    const east = { model: 'two-deployments', deployment: 'east' };
    const west = { model: 'two-deployments', deployment: 'west' };
    const now = clock.now();
    core.health.failed(east, policy, now, '503');
    core.health.failed(east, policy, now, '503');
    core.health.failed(east, policy, now, '429', now + 600_000);
    const end = core.health.started(west);
    core.health.started(west);
    expect(await series(metrics, 'platform_model_cooldowns_total')).toEqual({ 'two-deployments/east': 1 });
    expect(await series(metrics, 'platform_model_deployment_cooling')).toMatchObject({
      'two-deployments/east': 1,
      'two-deployments/west': 0,
      'one-upstream/default': 0,
    });
    expect(await series(metrics, 'platform_model_deployment_in_flight')).toMatchObject({
      'two-deployments/east': 0,
      'two-deployments/west': 2,
    });
    end();
    clock.advance(600_000);
    expect(await series(metrics, 'platform_model_deployment_cooling')).toMatchObject({ 'two-deployments/east': 0 });
    expect(await series(metrics, 'platform_model_deployment_in_flight')).toMatchObject({ 'two-deployments/west': 1 });
  });
});
