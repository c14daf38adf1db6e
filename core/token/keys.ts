import { createPrivateKey, createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, exportPKCS8, generateKeyPair, type JSONWebKeySet } from 'jose';
import type { KeyRecord, TokenStore } from './ports';

export const SIGNING_ALG = 'RS256' as const;

/** Port: makes a realm's signing key. Tests pass one that hands out keys made once. */
export type KeyGenerator = (realmId: string, now: number) => Promise<KeyRecord>;

/** A new RS256 key pair (2048 bits); `kid` is the RFC 7638 thumbprint of the public key. */
export const generateRealmKey: KeyGenerator = async (realmId, now) => {
  const { privateKey, publicKey } = await generateKeyPair(SIGNING_ALG, { modulusLength: 2048, extractable: true });
  const jwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(jwk);
  return {
    kid,
    realmId,
    alg: SIGNING_ALG,
    privateKeyPem: await exportPKCS8(privateKey),
    publicJwk: { ...jwk, kid, alg: SIGNING_ALG, use: 'sig' },
    createdAt: now,
  };
};

export interface KeyRing {
  /** The realm's newest key (its kid read again at most `activeTtlMs` after the last read). */
  signingKey(realmId: string): Promise<{ kid: string; key: KeyObject }>;
  /** The public key of `kid` in `realmId`, or undefined when the realm has no such key. */
  verificationKey(realmId: string, kid: string): Promise<KeyObject | undefined>;
  jwks(realmId: string): Promise<JSONWebKeySet>;
  /** A key was added here: the next signature reads the realm's newest kid at once. */
  forget(realmId: string): void;
}

/**
 * Keys never change once written, so parsed key objects are cached by realm and kid, and a kid not
 * seen yet is read from the store when a token names it (a key another process or replica added
 * verifies at once). Which key signs is the realm's newest; its kid is remembered for `activeTtlMs`
 * (1 s by default), so a rotation made elsewhere (the CLI, another replica) is used for signing
 * within that time, while tokens signed meanwhile with the previous key keep verifying everywhere
 * (old keys stay in the store and the JWKS). A rotation made through this process is used at once.
 */
export function createKeyRing(store: TokenStore, opts: { activeTtlMs?: number; now?: () => number } = {}): KeyRing {
  const activeTtlMs = opts.activeTtlMs ?? 1000;
  const now = opts.now ?? Date.now;
  const privateKeys = new Map<string, KeyObject>();
  const publicKeys = new Map<string, KeyObject>();
  const active = new Map<string, { kid: Promise<string | undefined>; until: number }>();
  const id = (realmId: string, kid: string) => `${realmId}/${kid}`;

  /** The active kid, one read in flight per realm however many tokens are being signed. */
  function activeKid(realmId: string): Promise<string | undefined> {
    const t = now();
    const known = active.get(realmId);
    if (known && known.until > t) return known.kid;
    const kid = store.keys.activeKid(realmId);
    active.set(realmId, { kid, until: t + activeTtlMs });
    kid.then(
      (k) => (k ? undefined : active.delete(realmId)),
      () => active.delete(realmId),
    );
    return kid;
  }

  return {
    async signingKey(realmId) {
      const kid = await activeKid(realmId);
      if (!kid) throw new Error(`realm ${realmId} has no signing key`);
      const k = id(realmId, kid);
      let key = privateKeys.get(k);
      if (!key) {
        const record = await store.keys.get(realmId, kid);
        privateKeys.set(k, (key = createPrivateKey(record!.privateKeyPem)));
      }
      return { kid, key };
    },
    async verificationKey(realmId, kid) {
      const k = id(realmId, kid);
      let key = publicKeys.get(k);
      if (!key) {
        const record = await store.keys.get(realmId, kid);
        if (!record) return undefined;
        publicKeys.set(k, (key = createPublicKey({ key: record.publicJwk as JsonWebKey, format: 'jwk' })));
      }
      return key;
    },
    async jwks(realmId) {
      return { keys: (await store.keys.list(realmId)).map((r) => r.publicJwk) };
    },
    forget(realmId) {
      active.delete(realmId);
    },
  };
}
