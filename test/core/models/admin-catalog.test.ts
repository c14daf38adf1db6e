import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openModelsCore, type ModelsCore } from '../../../core/models';
import { sqliteModelsStores } from '../../../core/models/sqlite';
import type { Admin } from '../../../core/shared/admin/access';
import { auditTrail } from '../../../core/shared/admin/audit';
import { memoryAuditStore } from '../../../core/shared/admin/memory-audit';
import { callStatus } from '../../../edge/http/call-status';
import pino from 'pino';
import { testClock } from '../../shared/helpers';

/**
 * The catalog's admin API on a core (core/models/admin-api/catalog.ts): what it answers, who may
 * change what, versions, and what the audit keeps. Over HTTP and GraphQL: test/e2e/models/admin-catalog.test.ts.
 */
describe('the catalog admin API', () => {
  let core: ModelsCore;
  const events = memoryAuditStore();
  const clock = testClock();
  const platform: Admin = { platform: true, realm: 'root', actor: { kind: 'user', name: 'root' } };
  const realmAdmin: Admin = { platform: false, realm: 'team', tenant: 'team', actor: { kind: 'user', name: 'team-admin' } };
  const as = (caller: Admin) => ({ caller });
  const entry = { group: 'A', kind: 'chat', upstream: { provider: 'local' }, contextLength: 4096 };

  beforeEach(async () => {
    events.events.splice(0);
    core = openModelsCore({
      stores: sqliteModelsStores(':memory:'),
      statusOf: callStatus,
      clock,
      catalogPollMs: 0,
      audit: auditTrail({ store: events, log: pino({ level: 'silent' }), clock, newId: () => String(events.events.length + 1) }),
    });
    await core.live.ready;
  });
  afterEach(() => core.close());
  const api = () => core.adminApi.catalog;
  const use = (id: string) => core.service.model({ id }, { caller: core.serviceCaller('test') });

  it('lists every model with its state to any administrator, filtered and paged', async () => {
    const all = await api().list({}, as(realmAdmin));
    expect(all.total).toBe(3);
    expect(all.items[0]).toEqual({
      id: 'local-chat',
      group: 'A',
      kind: 'chat',
      upstream: { provider: 'local', base_url: null, model: null, credential_env: null, region: null, api_version: null },
      context_length: 8192,
      dimensions: null,
      max_output_tokens: 1024,
      price: { input_per_million: 0, output_per_million: 0 },
      status: 'Active',
      input_kinds: ['text'],
      deployments: [
        {
          id: 'default',
          provider: 'local',
          base_url: null,
          model: null,
          region: null,
          credential_env: null,
          api_version: null,
          weight: 1,
          rpm: null,
        },
      ],
      source: 'file',
      active: true,
      version: 1,
      updated_at: null,
      updated_by: null,
    });
    await api().put({ id: 'team-chat', entry }, as(platform));
    await api().deactivate({ id: 'local-image' }, as(platform));
    expect((await api().list({ source: 'admin' }, as(platform))).items.map((m) => m.id)).toEqual(['team-chat']);
    expect((await api().list({ active: false }, as(platform))).items.map((m) => m.id)).toEqual(['local-image']);
    const first = await api().list({ limit: 2, sort: '-id' }, as(platform));
    expect(first.items.map((m) => m.id)).toEqual(['team-chat', 'local-image']);
    const next = await api().list({ limit: 2, sort: '-id', cursor: first.nextCursor! }, as(platform));
    expect(next.items.map((m) => m.id)).toEqual(['local-embed', 'local-chat']);
    await expect(api().list({ sort: 'secret' }, as(platform))).rejects.toMatchObject({ kind: 'bad_request' });
  });

  it('adds a model that is served at once; replaces it; deactivates it (refused as deactivated) and a put reactivates it', async () => {
    const added = await api().put({ id: 'team-chat', entry: { ...entry, id: 'team-chat' } }, as(platform));
    expect(added).toMatchObject({ id: 'team-chat', source: 'admin', active: true, version: 1, updated_by: 'root', context_length: 4096 });
    expect((await use('team-chat')).contextLength).toBe(4096);
    expect(core.catalog.map((m) => m.id)).toContain('team-chat');

    const replaced = await api().put({ id: 'team-chat', entry: { ...entry, contextLength: 2048 }, version: 1 }, as(platform));
    expect(replaced).toMatchObject({ version: 2, context_length: 2048 });
    expect((await use('team-chat')).contextLength).toBe(2048);

    const off = await api().deactivate({ id: 'team-chat', version: 2 }, as(platform));
    expect(off).toMatchObject({ active: false, status: 'Deactivated', version: 3, source: 'admin' });
    await expect(use('team-chat')).rejects.toMatchObject({ code: 'model_deactivated' });
    expect(await api().put({ id: 'team-chat', entry }, as(platform))).toMatchObject({ active: true, version: 4 });
    expect((await use('team-chat')).id).toBe('team-chat');
  });

  it("a file model: version 1 until changed; deactivated (its entry stays the file's), replaced; a stale version is 412", async () => {
    expect(await api().get({ id: 'local-chat' }, as(platform))).toMatchObject({ version: 1, source: 'file' });
    await expect(api().deactivate({ id: 'local-chat', version: 2 }, as(platform))).rejects.toMatchObject({ kind: 'precondition_failed' });
    const off = await api().deactivate({ id: 'local-chat', version: 1 }, as(platform));
    expect(off).toMatchObject({ version: 2, source: 'file', active: false, context_length: 8192 });
    await expect(use('local-chat')).rejects.toMatchObject({ code: 'model_deactivated' });
    await expect(api().put({ id: 'local-chat', entry, version: 1 }, as(platform))).rejects.toMatchObject({ kind: 'precondition_failed' });
    expect(await api().put({ id: 'local-chat', entry, version: 2 }, as(platform))).toMatchObject({
      version: 3,
      source: 'admin',
      active: true,
    });
    // Unknown: 404; a version for a model nobody made yet: 412.
    await expect(api().get({ id: 'nope' }, as(platform))).rejects.toMatchObject({ kind: 'not_found' });
    await expect(api().deactivate({ id: 'nope' }, as(platform))).rejects.toMatchObject({ kind: 'not_found' });
    await expect(api().put({ id: 'nope', entry, version: 1 }, as(platform))).rejects.toMatchObject({ kind: 'precondition_failed' });
  });

  it('refuses an entry the catalog file would refuse (400, naming what is wrong), and a realm administrator any change (403)', async () => {
    const bad = (e: unknown) => api().put({ id: 'bad-model', entry: e }, as(platform));
    await expect(bad({ ...entry, contextLength: -1 })).rejects.toMatchObject({
      kind: 'bad_request',
      message: expect.stringMatching(/contextLength/),
    });
    await expect(bad({ ...entry, upstream: { provider: 'nowhere' } })).rejects.toMatchObject({
      message: expect.stringMatching(/upstream\.provider/),
    });
    await expect(bad({ ...entry, id: 'another-id' })).rejects.toMatchObject({ kind: 'bad_request' });
    await expect(bad(['not', 'an', 'object'])).rejects.toMatchObject({ kind: 'bad_request' });
    await expect(api().put({ id: 'white space', entry }, as(platform))).rejects.toMatchObject({ kind: 'bad_request' });
    await expect(api().put({ id: 'team-chat', entry }, as(realmAdmin))).rejects.toMatchObject({ kind: 'forbidden' });
    await expect(api().deactivate({ id: 'local-chat' }, as(realmAdmin))).rejects.toMatchObject({ kind: 'forbidden' });
    expect(core.live.current().byId.has('bad-model')).toBe(false);
    expect((await use('local-chat')).id).toBe('local-chat');
  });

  it('audits every change and every refused one, with who and the target', async () => {
    await api().put({ id: 'az', entry }, as(platform));
    await api().deactivate({ id: 'az' }, as(platform));
    await api()
      .put({ id: 'az', entry }, as(realmAdmin))
      .catch(() => undefined);
    expect(events.events.map((e) => [e.type, e.outcome, e.actor.name, e.target?.id, e.service])).toEqual([
      ['model.put', 'success', 'root', 'az', 'models'],
      ['model.deactivate', 'success', 'root', 'az', 'models'],
      ['model.put', 'failure', 'team-admin', 'az', 'models'],
    ]);
    expect(events.events[0].details).toMatchObject({ version: 1, provider: 'local', active: true });
    expect(events.events[2].reason).toMatch(/platform-admin/);
  });

  it('names a credential variable only as the catalog file does: same provider and address (else any secret of the process could be sent anywhere)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'catalog-'));
    const file = join(dir, 'catalog.json');
    const azure = { provider: 'azure-openai', baseUrl: 'https://ours.openai.azure.com', credentialEnv: 'AZURE_OPENAI_API_KEY' };
    writeFileSync(file, JSON.stringify({ models: [{ id: 'gpt-4o', group: 'A', upstream: azure, contextLength: 128000 }] }));
    const withFile = openModelsCore({ stores: sqliteModelsStores(':memory:'), statusOf: callStatus, catalogFile: file, catalogPollMs: 0 });
    try {
      const put = (upstream: object) => withFile.adminApi.catalog.put({ id: 'gpt-4o-mini', entry: { ...entry, upstream } }, as(platform));
      expect(await put({ ...azure, model: 'gpt-4o-mini' })).toMatchObject({ upstream: { credential_env: 'AZURE_OPENAI_API_KEY' } });
      await expect(put({ ...azure, baseUrl: 'https://attacker.example' })).rejects.toMatchObject({
        kind: 'bad_request',
        message: expect.stringMatching(/credentialEnv/),
      });
      await expect(
        put({ provider: 'openai-compatible', baseUrl: 'https://attacker.example/v1', credentialEnv: 'DATABASE_URL' }),
      ).rejects.toMatchObject({
        kind: 'bad_request',
      });
      await expect(put({ ...azure, provider: 'openai-compatible' })).rejects.toMatchObject({ kind: 'bad_request' });
      // Without a credential, any address: an internal vLLM, say.
      expect(await put({ provider: 'openai-compatible', baseUrl: 'http://vllm.internal:8000/v1' })).toMatchObject({ version: 2 });
    } finally {
      await withFile.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
