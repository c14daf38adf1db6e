import type { Clock } from '../../shared/clock';
import { Conflict, NotFound } from '../../shared/errors';
import { uuidv7 } from '../../shared/ids';
import { hashOfKey, mayBeKey, newKeyText, prefixOf, type ApiKey, type NewKey } from './api-key';
import type { KeyStore } from '../ports';
import type { MoneyBudget } from '../spend/budget';

export type { ApiKey, NewKey } from './api-key';

/** Why the gateway refused a text as a key (an audit event's reason): never the text itself. */
export type KeyRefusal = 'not an LM key' | 'unknown key' | 'revoked key' | 'expired key';

/** What a key does, as its administrator set it (a rotation copies it). */
type KeySettings = Omit<ApiKey, 'id' | 'prefix' | 'createdAt' | 'revokedAt'>;

/** Whether a key has expired at `now` (from its expiry on, it is refused as a revoked key is). */
export const expiredAt = (k: Pick<ApiKey, 'expiresAt'>, now: number): boolean => k.expiresAt !== null && k.expiresAt.getTime() <= now;

/**
 * The gateway's API keys over their store: the key's text is made here, shown once, and only its
 * hash goes to the store, which finds a key by that hash (nothing to compare, nothing to time).
 */
export function apiKeys(store: KeyStore, clock: Clock) {
  /** A new key's record and text: the only time its text exists outside the caller. */
  const made = (settings: KeySettings, now: number) => {
    const apiKey = newKeyText();
    const key: ApiKey = { id: uuidv7(now), prefix: prefixOf(apiKey), ...settings, createdAt: new Date(now), revokedAt: null };
    return { key, apiKey };
  };
  return {
    async create(k: NewKey): Promise<ApiKey & { apiKey: string }> {
      const { key, apiKey } = made(
        {
          name: k.name,
          tenant: k.tenant,
          models: k.models ?? null,
          requestsPerMinute: k.requestsPerMinute ?? null,
          tokenBudget: k.tokenBudget ?? null,
          ...(k.budget && { budget: k.budget }),
          expiresAt: k.expiresAt ?? null,
        },
        clock.now(),
      );
      await store.create(key, hashOfKey(apiKey));
      return { ...key, apiKey };
    },
    /** The live key whose text this is, if any: neither revoked nor expired. */
    async verify(apiKey: string): Promise<ApiKey | undefined> {
      const found = mayBeKey(apiKey) ? await store.findLive(hashOfKey(apiKey)) : undefined;
      return found && !expiredAt(found, clock.now()) ? found : undefined;
    },
    /** Why `verify` refused this text, and the key it names when there is one (a refusal's audit event). */
    async refusal(apiKey: string): Promise<{ reason: KeyRefusal; key?: ApiKey }> {
      if (!mayBeKey(apiKey)) return { reason: 'not an LM key' };
      const key = await store.find(hashOfKey(apiKey));
      if (!key) return { reason: 'unknown key' };
      return { reason: key.revokedAt ? 'revoked key' : 'expired key', key };
    },
    /** The key with this id, revoked or not. */
    get: (id: string): Promise<ApiKey | undefined> => store.get(id),
    /** The keys of a tenant, or every key; oldest first. */
    list: (tenant?: string): Promise<ApiKey[]> => store.list(tenant),
    /** Revokes by id or listing prefix; calls made with it fail at once. */
    async revoke(idOrPrefix: string): Promise<ApiKey> {
      const k = await store.revoke(idOrPrefix, clock.now());
      if (!k) throw new NotFound(`No key ${JSON.stringify(idOrPrefix)}`);
      return k;
    },
    /** Sets (null: removes) the key's money budget: the next call reserves under it at once (404 when there is no such key). */
    async setBudget(id: string, budget: MoneyBudget | null): Promise<ApiKey> {
      const k = await store.setBudget(id, budget);
      if (!k) throw new NotFound(`No key ${JSON.stringify(id)}`);
      return k;
    },
    /**
     * A new key with the settings of live key `id` (name, tenant, models, limits, expiry), shown
     * once, and `id` revoked in the same step: 404 when there is no such key, 409 when it no longer
     * works (revoked, by another rotation too, or expired: a new key would not work either).
     */
    async rotate(id: string): Promise<{ revoked: ApiKey; key: ApiKey & { apiKey: string } }> {
      const old = await store.get(id);
      if (!old) throw new NotFound(`No key ${JSON.stringify(id)}`);
      const now = clock.now();
      const gone = () => new Conflict(`The key ${JSON.stringify(id)} is revoked: only a live key is rotated`);
      if (old.revokedAt) throw gone();
      if (expiredAt(old, now)) throw new Conflict(`The key ${JSON.stringify(id)} has expired: create a new one`);
      const { id: _id, prefix: _prefix, createdAt: _created, revokedAt: _revoked, ...settings } = old;
      const { key, apiKey } = made(settings, now);
      const revoked = await store.rotate(id, key, hashOfKey(apiKey), now);
      if (!revoked) throw gone();
      return { revoked, key: { ...key, apiKey } };
    },
  };
}

export type ApiKeys = ReturnType<typeof apiKeys>;
