import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { bootstrapPath } from '../services/shared/cli';
import type { Opened } from './deps';

export { bootstrapPath };

export interface BootstrapResult {
  file: string;
  values: Record<string, string>;
  /** True when this start created something (the first start). */
  created: boolean;
}

/**
 * DECISIONS: the first start creates what a new user needs (each service its part: realm, demo
 * client and user, gateway key, ...) and keeps the credentials in `<data dir>/bootstrap.json`
 * (mode 0600). Later starts give each service what the file holds, so nothing is created twice.
 */
export async function runBootstrap(dataDir: string, opened: readonly Opened[]): Promise<BootstrapResult> {
  const file = bootstrapPath(dataDir);
  const before: Record<string, string> = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>) : {};
  let values = { ...before };
  for (const { module, instance } of opened) {
    if (module.bootstrap) values = { ...values, ...(await module.bootstrap(instance, values)) };
  }
  const created = JSON.stringify(values) !== JSON.stringify(before);
  if (created) {
    writeFileSync(file, `${JSON.stringify(values, null, 2)}\n`, { mode: 0o600 });
    chmodSync(file, 0o600);
  }
  return { file, values, created };
}
