import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { bootstrapPath } from '../services/shared/cli';
import type { BootstrapScope, Opened } from './deps';

export { bootstrapPath };

export interface BootstrapResult {
  file: string;
  values: Record<string, string>;
  /** True when this start created something (the first start). */
  created: boolean;
  /**
   * True when the stores are shared (DATABASE_URL) and another replica had set them up: the file
   * holds the ids of its realm and demo accounts, and their secrets are in that replica's file only.
   */
  joined: boolean;
}

const alone: BootstrapScope = { shared: false, exclusive: (fn) => fn() };

/**
 * DECISIONS: the first start creates what a new user needs (each service its part: realm, demo
 * client and user, gateway key, ...) and keeps the credentials in `<data dir>/bootstrap.json`
 * (mode 0600). Later starts give each service what the file holds, so nothing is created twice.
 * On shared stores the bootstraps of all replicas run one after another: the first sets the
 * database up, the others find it set up and join it (docs/decisions.md, "Issue 30: bootstrap once").
 */
export async function runBootstrap(dataDir: string, opened: readonly Opened[], scope: BootstrapScope = alone): Promise<BootstrapResult> {
  const file = bootstrapPath(dataDir);
  const before: Record<string, string> = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>) : {};
  let joined = false;
  const values = await scope.exclusive(async () => {
    let now = { ...before };
    const ctx = { shared: scope.shared, joined: () => void (joined = true) };
    for (const { module, instance } of opened) {
      if (module.bootstrap) now = { ...now, ...(await module.bootstrap(instance, now, ctx)) };
    }
    return now;
  });
  const changed = JSON.stringify(values) !== JSON.stringify(before);
  if (changed) {
    writeFileSync(file, `${JSON.stringify(values, null, 2)}\n`, { mode: 0o600 });
    chmodSync(file, 0o600);
  }
  return { file, values, created: changed && !joined, joined };
}
