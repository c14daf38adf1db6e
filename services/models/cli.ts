import { readFileSync } from 'node:fs';
import { modelsAdminClient } from '../../clients/models/admin';
import type { Admin } from '../../core/shared/admin/access';
import type { Ctx } from '../../core/shared/context';
import type { ModelsAdminApi } from '../../core/models/admin-api';
import { cliCtx, everyItem, LIST_FLAGS, versionFlag, whole, yesNo } from '../shared/admin-cli';
import { listFlag, tenantFlag, UsageError } from '../shared/cli';
import type { CliCommand } from '../shared/module';
import type { ModelsInstance } from './instance';

type Flags = Record<string, string | undefined>;

const positive = (v: string | undefined, name: string) => (v === undefined ? undefined : whole(v, name));

/** A number flag (dollars, a fraction); a usage error when it is not one. */
const decimal = (v: string | undefined, name: string) => {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n)) throw new UsageError(`--${name} takes a number`);
  return n;
};

/** `--budget-usd N [--budget-period daily|monthly] [--budget-warn F]`: a money budget (docs/spend.md). */
function budgetFlags(f: Flags) {
  const usd = decimal(f['budget-usd'], 'budget-usd');
  if (usd === undefined) {
    if (f['budget-period'] !== undefined || f['budget-warn'] !== undefined)
      throw new UsageError('--budget-period and --budget-warn need --budget-usd');
    return undefined;
  }
  return { usd, period: f['budget-period'], warn_at: decimal(f['budget-warn'], 'budget-warn') };
}

/**
 * `platform key|model|usage ...`: LM keys (shown once, stored hashed), the model catalog and what
 * the gateway metered, through the admin API (core/models/admin-api): the data directory's core
 * acting as the local administrator, or a remote platform's (`--url`), printing the same views.
 * `tenant`: the tenant a new key gets when --tenant is not given (locally, the first start's).
 */
async function keyCommand(api: ModelsAdminApi, ctx: Ctx<Admin>, words: string[], f: Flags, tenant: () => string | undefined) {
  const [verb, target] = words;
  const id = () => {
    const ref = target ?? f.id;
    if (!ref) throw new UsageError(`key ${verb} needs the key id or prefix`);
    return { id: ref };
  };
  switch (verb) {
    case 'create':
      if (!f.name) throw new UsageError('--name is required');
      return api.keys.create(
        {
          name: f.name,
          tenant_id: tenant(),
          models: listFlag(f.models),
          requests_per_minute: positive(f.rpm, 'rpm'),
          token_budget: positive(f['token-budget'], 'token-budget'),
          budget: budgetFlags(f),
          expires_at: f.expires,
        },
        ctx,
      );
    case 'list':
      return everyItem((ask) => api.keys.list({ ...ask, tenant: f.tenant, revoked: yesNo(f.revoked, 'revoked'), q: f.q }, ctx), f);
    case 'get':
      return api.keys.get(id(), ctx);
    case 'update': {
      // Only the money budget changes: --budget-usd sets it, --no-budget removes it.
      const budget = budgetFlags(f);
      if (f['no-budget'] !== undefined && budget) throw new UsageError('--no-budget and --budget-usd exclude each other');
      if (f['no-budget'] === undefined && !budget) throw new UsageError('key update needs --budget-usd N or --no-budget');
      return api.keys.update({ ...id(), budget: budget ?? null }, ctx);
    }
    case 'revoke':
      return api.keys.revoke(id(), ctx);
    case 'rotate':
      return api.keys.rotate(id(), ctx);
    default:
      throw new UsageError(`unknown key command '${verb ?? ''}'`);
  }
}

/** A catalog entry as the catalog file holds one: `--file F` (`-`: standard input). */
function entryOf(file: string | undefined): unknown {
  if (!file) throw new UsageError('model put needs --file F: a JSON catalog entry (- for standard input)');
  let text: string;
  try {
    text = readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read ${file}: ${(err as Error).message}`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new UsageError(`${file} is not JSON`);
  }
}

async function modelCommand(api: ModelsAdminApi, ctx: Ctx<Admin>, words: string[], f: Flags) {
  const [verb, target] = words;
  const id = () => {
    if (!target) throw new UsageError(`model ${verb} needs the model id`);
    return target;
  };
  const source = f.source;
  if (source !== undefined && source !== 'file' && source !== 'admin') throw new UsageError('--source takes file or admin');
  switch (verb) {
    case 'list':
      return everyItem((ask) => api.catalog.list({ ...ask, active: yesNo(f.active, 'active'), source }, ctx), f);
    case 'get':
      return api.catalog.get({ id: id() }, ctx);
    case 'put':
      return api.catalog.put({ id: id(), entry: entryOf(f.file), version: versionFlag(f.version) }, ctx);
    case 'deactivate':
      return api.catalog.deactivate({ id: id(), version: versionFlag(f.version) }, ctx);
    default:
      throw new UsageError(`unknown model command '${verb ?? ''}'`);
  }
}

function usageCommand(api: ModelsAdminApi, ctx: Ctx<Admin>, words: string[], f: Flags) {
  if (words.length) throw new UsageError(`usage takes flags only, not '${words[0]}'`);
  return everyItem((ask) => api.usage.list({ ...ask, tenant: f.tenant, key: f.key, model: f.model, from: f.from, to: f.to }, ctx), f);
}

export const modelsCommands: CliCommand<ModelsInstance>[] = [
  {
    name: 'key',
    usage: [
      'platform key create --name N [--tenant T] [--models m1,m2] [--rpm N] [--token-budget N] [--expires ISO-TIME]',
      '       [--budget-usd N [--budget-period daily|monthly] [--budget-warn 0.8]]   an LM key, shown once',
      'platform key list [--tenant T] [--revoked true|false] [--q NAME] | get <id> | revoke <id|prefix>',
      'platform key rotate <id>                     a new key with the same settings, shown once; the old one revoked',
      'platform key update <id> --budget-usd N [--budget-period daily|monthly] [--budget-warn 0.8] | --no-budget',
      '                                             set or remove its money budget (its next call is held by it)',
    ],
    // --id: the target given as a flag instead of a word.
    flags: {
      values: [
        'name',
        'tenant',
        'models',
        'rpm',
        'token-budget',
        'budget-usd',
        'budget-period',
        'budget-warn',
        'expires',
        'id',
        'revoked',
        'q',
        ...LIST_FLAGS,
      ],
      switches: ['no-budget'],
    },
    run: (core, words, f) => keyCommand(core.adminApi, cliCtx(), words, f, () => tenantFlag(core.dataDir, f.tenant)),
    // Without --tenant, the platform gives the administrator's own tenant.
    remote: (conn, words, f) => keyCommand(modelsAdminClient(conn), cliCtx(), words, f, () => f.tenant),
  },
  {
    name: 'model',
    usage: [
      "platform model list [--active true|false] [--source file|admin] | get <id>   the catalog, with each model's state",
      'platform model put <id> --file F [--version V]   add or replace a model (F: a catalog entry as JSON, - for standard input)',
      'platform model deactivate <id> [--version V]     calls to it are refused until it is put again',
    ],
    flags: { values: ['active', 'source', 'file', 'version', ...LIST_FLAGS] },
    run: (core, words, f) => modelCommand(core.adminApi, cliCtx(), words, f),
    remote: (conn, words, f) => modelCommand(modelsAdminClient(conn), cliCtx(), words, f),
  },
  {
    name: 'usage',
    usage: [
      'platform usage [--tenant T] [--key ID] [--model M] [--from YYYY-MM-DD] [--to YYYY-MM-DD]   metered calls per day, tenant, key and model',
    ],
    flags: { values: ['tenant', 'key', 'model', 'from', 'to', ...LIST_FLAGS] },
    run: (core, words, f) => usageCommand(core.adminApi, cliCtx(), words, f),
    remote: (conn, words, f) => usageCommand(modelsAdminClient(conn), cliCtx(), words, f),
  },
];
