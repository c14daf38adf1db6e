import { createRemoteJWKSet } from 'jose';
import type { KeySource } from './verifier';

export interface RemoteKeyOptions {
  /** Realms whose key sets are kept (least recently added dropped first). */
  maxRealms?: number;
  /** How long a realm whose keys could not be fetched (404: no such realm) is not asked again. */
  missTtlMs?: number;
  /** First fetches of realms not seen before, per minute; past it they read as unknown. */
  newRealmsPerMinute?: number;
  now?: () => number;
}

/**
 * Remote mode: keys come from the token service's JWKS endpoint. jose caches each realm's set and
 * refetches (with a cooldown) when it meets an unknown `kid`, so rotated keys are picked up.
 * Realm ids come from unverified issuers, so a forger must not be able to make this fetch at will:
 * the verifier passes only UUIDs, a realm that failed is remembered as a miss, and realms never
 * seen before are looked up at a bounded rate.
 */
export function remoteJwksKeySource(tokenServiceUrl: string, opts: RemoteKeyOptions = {}): KeySource {
  const maxRealms = opts.maxRealms ?? 256;
  const missTtl = opts.missTtlMs ?? 5 * 60_000;
  const perMinute = opts.newRealmsPerMinute ?? 30;
  const now = opts.now ?? Date.now;
  const sets = new Map<string, { set: ReturnType<typeof createRemoteJWKSet>; confirmed: boolean }>();
  const misses = new Map<string, number>();
  let window = { start: now(), count: 0 };

  const url = (realmId: string) =>
    new URL(`${tokenServiceUrl.replace(/\/+$/, '')}/auth/api/v1/realms/${encodeURIComponent(realmId)}/protocol/openid-connect/certs`);

  const mayLookUp = () => {
    if (now() - window.start >= 60_000) window = { start: now(), count: 0 };
    return window.count++ < perMinute;
  };

  const remember = <K, V>(map: Map<K, V>, k: K, v: V) => {
    if (map.size >= maxRealms) map.delete(map.keys().next().value as K);
    map.set(k, v);
  };

  return {
    async key(realmId, kid) {
      const missUntil = misses.get(realmId);
      if (missUntil !== undefined && missUntil > now()) return undefined;
      let entry = sets.get(realmId);
      if (!entry) {
        if (!mayLookUp()) return undefined;
        entry = { set: createRemoteJWKSet(url(realmId), { cooldownDuration: 30_000, cacheMaxAge: 10 * 60_000 }), confirmed: false };
        remember(sets, realmId, entry);
      }
      try {
        const key = await entry.set({ alg: 'RS256', kid });
        entry.confirmed = true;
        return key;
      } catch (err) {
        // The set was fetched but has no such kid: the realm exists, the key does not.
        if (entry.confirmed || (err as { code?: string }).code === 'ERR_JWKS_NO_MATCHING_KEY') {
          entry.confirmed = true;
          return undefined;
        }
        sets.delete(realmId);
        remember(misses, realmId, now() + missTtl);
        return undefined;
      }
    },
  };
}
