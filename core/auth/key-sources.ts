import { createRemoteJWKSet } from 'jose';
import type { KeySource } from './verifier';

/**
 * Remote mode: keys come from the token service's JWKS endpoint. jose caches each realm's set and
 * refetches (with a cooldown) when it meets an unknown `kid`, so rotated keys are picked up.
 */
export function remoteJwksKeySource(tokenServiceUrl: string, maxRealms = 256): KeySource {
  const sets = new Map<string, ReturnType<typeof createRemoteJWKSet>>();
  return {
    async key(realmId, kid) {
      let set = sets.get(realmId);
      if (!set) {
        const url = new URL(`${tokenServiceUrl.replace(/\/+$/, '')}/auth/api/v1/realms/${encodeURIComponent(realmId)}/protocol/openid-connect/certs`);
        set = createRemoteJWKSet(url, { cooldownDuration: 30_000, cacheMaxAge: 10 * 60_000 });
        // Realms come from unverified issuers: bound the cache so forged ones cannot grow it.
        if (sets.size >= maxRealms) sets.delete(sets.keys().next().value as string);
        sets.set(realmId, set);
      }
      try {
        return await set({ alg: 'RS256', kid });
      } catch {
        return undefined;
      }
    },
  };
}
