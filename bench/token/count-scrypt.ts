/**
 * Preloaded (`node --require`) into a platform `npm run bench:auth-flood-distributed` starts, old
 * build or new alike: counts the process's scrypt calls into `$BENCH_SCRYPT_DIR/<pid>`, so the bench
 * can tell how many hashes an attack cost the server (each worker process writes its own file).
 */
import type * as Crypto from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.env.BENCH_SCRYPT_DIR;
if (dir) {
  // The module object itself (an import would copy its properties): the platform reads `scrypt` from it at each call.
  const crypto = require('node:crypto') as { scrypt: typeof Crypto.scrypt };
  const original = crypto.scrypt;
  let calls = 0;
  crypto.scrypt = function counted(this: unknown, ...args: unknown[]) {
    writeFileSync(join(dir, String(process.pid)), String(++calls));
    return (original as (...a: unknown[]) => void).apply(this, args);
  };
}
