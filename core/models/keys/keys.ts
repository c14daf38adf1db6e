import type { Clock } from '../../shared/clock';
import { NotFound } from '../../shared/errors';
import { uuidv7 } from '../../shared/ids';
import { hashOfKey, mayBeKey, newKeyText, prefixOf, type ApiKey, type NewKey } from './api-key';
import type { KeyStore } from '../ports';

export type { ApiKey, NewKey } from './api-key';

/**
 * The gateway's API keys over their store: the key's text is made here, shown once, and only its
 * hash goes to the store, which finds a key by that hash (nothing to compare, nothing to time).
 */
export function apiKeys(store: KeyStore, clock: Clock) {
  return {
    /** A new key: the only time its text exists outside the caller. */
    async create(k: NewKey): Promise<ApiKey & { apiKey: string }> {
      const apiKey = newKeyText();
      const now = clock.now();
      const key: ApiKey = {
        id: uuidv7(now),
        prefix: prefixOf(apiKey),
        name: k.name,
        tenant: k.tenant,
        models: k.models ?? null,
        requestsPerMinute: k.requestsPerMinute ?? null,
        tokenBudget: k.tokenBudget ?? null,
        createdAt: new Date(now),
        revokedAt: null,
      };
      await store.create(key, hashOfKey(apiKey));
      return { ...key, apiKey };
    },
    /** The live key whose text this is, if any. */
    verify: async (apiKey: string): Promise<ApiKey | undefined> => (mayBeKey(apiKey) ? store.findLive(hashOfKey(apiKey)) : undefined),
    /** The keys of a tenant, or every key; oldest first. */
    list: (tenant?: string): Promise<ApiKey[]> => store.list(tenant),
    /** Revokes by id or listing prefix; calls made with it fail at once. */
    async revoke(idOrPrefix: string): Promise<ApiKey> {
      const k = await store.revoke(idOrPrefix, clock.now());
      if (!k) throw new NotFound(`No key ${JSON.stringify(idOrPrefix)}`);
      return k;
    },
  };
}

export type ApiKeys = ReturnType<typeof apiKeys>;
