import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ModelsInstance } from '../../../services/models/instance';
import { consoleFixture, describeConsole, fitsWidth, severe, type ConsoleFixture } from './fixture';

/**
 * The Models page shows each model's deployments with their state (issue 35): a catalog model with
 * two deployments, one cooling down (started through the models instance's health port, as the
 * router does on failures), the other healthy; on a desktop and on a phone, accessible (axe).
 */
jest.setTimeout(180_000);

const CATALOG = {
  models: [
    {
      id: 'two-way-chat',
      group: 'A',
      contextLength: 4096,
      deployments: [
        { id: 'east', upstream: { provider: 'local', region: 'eastus' } },
        { id: 'west', upstream: { provider: 'local', region: 'westus' } },
      ],
    },
  ],
};

describeConsole('the console: deployments on the Models page', () => {
  let f: ConsoleFixture;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'console-deployments-'));
    writeFileSync(join(dir, 'catalog.json'), JSON.stringify(CATALOG));
    f = await consoleFixture({ MODELS_CATALOG_FILE: join(dir, 'catalog.json') });
    const models = f.platform.instances.models as unknown as ModelsInstance;
    const now = Date.now();
    const policy = { failures: 1, windowSeconds: 60, seconds: 3600 };
    models.health.failed({ model: 'two-way-chat', deployment: 'west' }, policy, now, '503');
    models.health.succeeded({ model: 'two-way-chat', deployment: 'east' }, 42);
  }, 120_000);
  afterAll(async () => {
    await f?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const phone of [false, true]) {
    it(`shows each deployment with its state badge, in flight and latency${phone ? ', on a phone' : ''}`, async () => {
      const { page, context, errors } = await f.asAdmin({ phone });
      try {
        await page.getByRole('link', { name: 'Models', exact: true }).click();
        await page.getByRole('heading', { name: 'Models', level: 1 }).waitFor();
        const list = page.getByRole('list', { name: 'Deployments of two-way-chat' });
        await list.waitFor();
        const items = await list.getByRole('listitem').allInnerTexts();
        expect(items).toHaveLength(2);
        expect(items[0]).toMatch(/^east\s+healthy\s+0 in flight, 42 ms$/);
        expect(items[1]).toMatch(/^west\s+cooling until \d\d:\d\d:\d\d\s+0 in flight, no latency yet$/);
        if (phone) expect(await fitsWidth(page)).toBe(true);
        expect(await severe(page)).toEqual([]);
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });
  }
});
