import { chmodSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../core/shared/config';

const SECRET_FILES = /(\.db(-wal|-shm)?|^bootstrap\.json)$/;

/**
 * The data directory holds signing keys, secret hashes and the first start's credentials: it must
 * be the owner's alone (0700, files 0600). A new one is created so; an existing one readable by
 * others is tightened, and refused with a message when that is not possible. Returns what it changed.
 */
export function secureDataDir(dir: string): string[] {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const changed: string[] = [];
  const tighten = (path: string, mode: number) => {
    const current = statSync(path).mode & 0o777;
    if ((current & 0o077) === 0) return;
    try {
      chmodSync(path, mode);
      changed.push(`${path}: ${current.toString(8).padStart(4, '0')} -> ${mode.toString(8).padStart(4, '0')}`);
    } catch (err) {
      throw new ConfigError(
        `${path} is readable by other users (mode ${current.toString(8)}) and could not be restricted: ${(err as Error).message}`,
      );
    }
  };
  tighten(dir, 0o700);
  for (const name of readdirSync(dir)) if (SECRET_FILES.test(name)) tighten(join(dir, name), 0o600);
  return changed;
}
