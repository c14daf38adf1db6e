import { listFlag, tenantFlag, UsageError } from '../shared/cli';
import type { ApiKey } from '../../core/models/keys/keys';
import type { CliCommand } from '../shared/module';
import type { ModelsInstance } from './instance';

const positive = (v: string | undefined, name: string) => {
  if (v === undefined) return undefined;
  if (!/^[1-9]\d{0,12}$/.test(v)) throw new UsageError(`--${name} takes a positive whole number`);
  return Number(v);
};

const view = (k: ApiKey) => ({
  id: k.id,
  prefix: k.prefix,
  name: k.name,
  tenant_id: k.tenant,
  models: k.models,
  requests_per_minute: k.requestsPerMinute,
  token_budget: k.tokenBudget,
  created_at: k.createdAt.toISOString(),
  revoked_at: k.revokedAt?.toISOString() ?? null,
});

/** `platform key create|list|revoke`: LM keys for the model gateway (shown once, stored hashed). */
export const modelsCommands: CliCommand<ModelsInstance>[] = [
  {
    name: 'key',
    usage: [
      'platform key create --name N [--tenant T] [--models m1,m2] [--rpm N] [--token-budget N]   an LM key, shown once',
      'platform key list [--tenant T] | revoke <id|prefix>',
    ],
    // --id: revoke's target given as a flag instead of a word.
    flags: { values: ['name', 'tenant', 'models', 'rpm', 'token-budget', 'id'] },
    run: async (core, words, f) => {
      const [verb, target] = words;
      switch (verb) {
        case 'create': {
          if (!f.name) throw new UsageError('--name is required');
          const tenant = tenantFlag(core.dataDir, f.tenant);
          const models = listFlag(f.models);
          const unknown = models?.filter((m) => !core.catalog.some((c) => c.id === m));
          if (unknown?.length) throw new UsageError(`not in the catalog: ${unknown.join(', ')}`);
          const k = await core.keys.create({
            name: f.name,
            tenant,
            models,
            requestsPerMinute: positive(f.rpm, 'rpm'),
            tokenBudget: positive(f['token-budget'], 'token-budget'),
          });
          return { api_key: k.apiKey, ...view(k) };
        }
        case 'list':
          return (await core.keys.list(f.tenant)).map(view);
        case 'revoke': {
          const id = target ?? f.id;
          if (!id) throw new UsageError('key revoke needs the key id or prefix');
          return view(await core.keys.revoke(id));
        }
        default:
          throw new UsageError(`unknown key command '${verb ?? ''}'`);
      }
    },
  },
];
