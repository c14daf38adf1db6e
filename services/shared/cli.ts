import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** What the `platform` command and the services' own commands share: usage errors, flags, the first start's file. */

/** A command used wrongly: the CLI prints its message and the help, and exits with 2. */
export class UsageError extends Error {}

/** A comma-separated flag (`--tags a,b`) as a list; undefined when absent. */
export const listFlag = (v: string | undefined): string[] | undefined =>
  v
    ? v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : undefined;

/** The first start's credentials (DECISIONS): `<data dir>/bootstrap.json`. */
export const bootstrapPath = (dataDir: string) => join(dataDir, 'bootstrap.json');

/** `--tenant`, else the tenant the first start created (`bootstrap.json`'s `tenant_id`), for commands whose `--tenant` is optional. */
export function tenantFlag(dataDir: string, flag: string | undefined): string {
  if (flag) return flag;
  const file = bootstrapPath(dataDir);
  const tenant = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { tenant_id?: string }).tenant_id : undefined;
  if (!tenant)
    throw new UsageError('--tenant is required (no bootstrap.json in the data directory: start the platform once, or name the tenant)');
  return tenant;
}
