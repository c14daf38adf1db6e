import { systemClock, type Clock } from '../clock';
import { createTokenAdmin, type TokenAdmin } from './admin';
import { createKeyRing, type KeyRing } from './keys';
import type { TokenStore } from './ports';
import { createSecretVerifier } from './secrets';
import { createFailureThrottle } from './throttle';
import type { TokenService } from './service';
import { sqliteTokenStore } from './sqlite-store';
import { createTokenService } from './token-service';

export interface TokenCore {
  service: TokenService;
  admin: TokenAdmin;
  store: TokenStore;
  keys: KeyRing;
  close(): void;
}

export interface TokenCoreOptions {
  /** SQLite file, or `:memory:`. */
  file: string;
  publicUrl: string;
  clock?: Clock;
  lockout?: { threshold: number; seconds: number };
  /** Every commit waits for the disk (administration); see core/sqlite.ts. */
  durable?: boolean;
  /** Failed authentications allowed per caller address per minute; unlimited when absent. */
  authFailuresPerMinute?: number;
}

/** Wires the token service over its embedded store; the one place that picks its adapters. */
export function openTokenCore(opts: TokenCoreOptions): TokenCore {
  const clock = opts.clock ?? systemClock;
  const store = sqliteTokenStore(opts.file, { durable: opts.durable });
  const keys = createKeyRing(store);
  const service = createTokenService({
    store,
    keys,
    clock,
    secrets: createSecretVerifier({ now: () => clock.now() }),
    publicUrl: opts.publicUrl,
    lockout: opts.lockout ?? { threshold: 5, seconds: 900 },
    throttle: opts.authFailuresPerMinute
      ? createFailureThrottle({ limit: opts.authFailuresPerMinute, windowMs: 60_000, now: () => clock.now() })
      : undefined,
  });
  return { service, admin: createTokenAdmin({ store, clock }), store, keys, close: () => store.close() };
}
