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
  /** The realm's newest key; read from the store each time so a rotation by the CLI is seen at once. */
  signingKey(realmId: string): { kid: string; key: KeyObject };
  /** The public key of `kid` in `realmId`, or undefined when the realm has no such key. */
  verificationKey(realmId: string, kid: string): Promise<KeyObject | undefined>;
  jwks(realmId: string): JSONWebKeySet;
}

/** Keys never change once written, so parsed key objects are cached by realm and kid. */
export function createKeyRing(store: TokenStore): KeyRing {
  const privateKeys = new Map<string, KeyObject>();
  const publicKeys = new Map<string, KeyObject>();
  const id = (realmId: string, kid: string) => `${realmId}/${kid}`;

  return {
    signingKey(realmId) {
      const kid = store.keys.activeKid(realmId);
      if (!kid) throw new Error(`realm ${realmId} has no signing key`);
      const k = id(realmId, kid);
      let key = privateKeys.get(k);
      if (!key) privateKeys.set(k, (key = createPrivateKey(store.keys.get(realmId, kid)!.privateKeyPem)));
      return { kid, key };
    },
    async verificationKey(realmId, kid) {
      const k = id(realmId, kid);
      let key = publicKeys.get(k);
      if (!key) {
        const record = store.keys.get(realmId, kid);
        if (!record) return undefined;
        publicKeys.set(k, (key = createPublicKey({ key: record.publicJwk as JsonWebKey, format: 'jwk' })));
      }
      return key;
    },
    jwks(realmId) {
      return { keys: store.keys.list(realmId).map((r) => r.publicJwk) };
    },
  };
}
