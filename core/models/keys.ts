import { createHash, randomBytes } from 'node:crypto';
import type { Clock } from '../shared/clock';
import { NotFound } from '../shared/errors';
import { uuidv7 } from '../shared/ids';
import { openDatabase, statements, type Db } from '../shared/sqlite';
import { MODELS_MIGRATIONS } from './sqlite-schema';

/** An API key as the gateway and its administrator see it (never the key itself). */
export interface ApiKey {
  id: string;
  /** The key's first characters, to tell keys apart in listings. */
  prefix: string;
  name: string;
  tenant: string;
  /** Model ids the key may use; null: every model. */
  models: string[] | null;
  requestsPerMinute: number | null;
  tokenBudget: number | null;
  createdAt: Date;
  revokedAt: Date | null;
}

export interface NewKey {
  name: string;
  tenant: string;
  models?: string[];
  requestsPerMinute?: number;
  tokenBudget?: number;
}

const KEY_PREFIX = 'lmk-';
const hashOf = (key: string) => createHash('sha256').update(key).digest('hex');

const toKey = (r: Record<string, unknown>): ApiKey => ({
  id: r.id as string,
  prefix: r.prefix as string,
  name: r.name as string,
  tenant: r.tenant as string,
  models: r.models === null ? null : (JSON.parse(r.models as string) as string[]),
  requestsPerMinute: (r.requests_per_minute as number | null) ?? null,
  tokenBudget: (r.token_budget as number | null) ?? null,
  createdAt: new Date(r.created_at as number),
  revokedAt: r.revoked_at === null ? null : new Date(r.revoked_at as number),
});

export const openModelsDb = (file: string, opts: { durable?: boolean } = {}): Db => openDatabase(file, MODELS_MIGRATIONS, opts);

export function keyStore(db: Db, clock: Clock) {
  const s = statements(db);
  const insert = s.run(`INSERT INTO api_keys (id, hash, prefix, name, tenant, models, requests_per_minute, token_budget, created_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const byHash = s.one('SELECT * FROM api_keys WHERE hash = ?', toKey);
  const byId = s.one('SELECT * FROM api_keys WHERE id = ? OR prefix = ?', toKey);
  const list = s.many('SELECT * FROM api_keys WHERE (? IS NULL OR tenant = ?) ORDER BY created_at, id', toKey);
  const revoke = s.run('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL');

  return {
    /** A new key: the only time its text exists outside the caller. */
    create(k: NewKey): ApiKey & { apiKey: string } {
      const apiKey = `${KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
      const id = uuidv7(clock.now());
      insert(id, hashOf(apiKey), apiKey.slice(0, KEY_PREFIX.length + 6), k.name, k.tenant, k.models ? JSON.stringify(k.models) : null,
        k.requestsPerMinute ?? null, k.tokenBudget ?? null, clock.now());
      return { ...byId(id, id)!, apiKey };
    },
    /** The live key whose text this is, if any (looked up by hash: nothing to compare, nothing to time). */
    verify(apiKey: string): ApiKey | undefined {
      if (!apiKey.startsWith(KEY_PREFIX) || apiKey.length > 200) return undefined;
      const k = byHash(hashOf(apiKey));
      return k && !k.revokedAt ? k : undefined;
    },
    list: (tenant?: string) => list(tenant ?? null, tenant ?? null),
    /** Revokes by id or listing prefix; calls made with it fail at once. */
    revoke(idOrPrefix: string): ApiKey {
      const k = byId(idOrPrefix, idOrPrefix);
      if (!k) throw new NotFound(`No key ${JSON.stringify(idOrPrefix)}`);
      revoke(clock.now(), k.id);
      return byId(k.id, k.id)!;
    },
  };
}

export type KeyStore = ReturnType<typeof keyStore>;
