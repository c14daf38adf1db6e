import { calculateJwkThumbprint, exportJWK, exportPKCS8, generateKeyPair, importJWK, importPKCS8, type JSONWebKeySet, type KeyLike } from 'jose';
import type { KeyRecord, TokenStore } from './ports';

export const SIGNING_ALG = 'RS256' as const;

/** Makes a new RS256 key pair for a realm; `kid` is the RFC 7638 thumbprint of the public key. */
export async function generateRealmKey(realmId: string, now: number): Promise<KeyRecord> {
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
}

export interface KeyRing {
  signingKey(realmId: string): Promise<{ kid: string; key: KeyLike }>;
  /** The public key of `kid` in `realmId`, or undefined when the realm has no such key. */
  verificationKey(realmId: string, kid: string): Promise<KeyLike | undefined>;
  jwks(realmId: string): JSONWebKeySet;
}

/** Keys never change once written, so imported key objects are cached by realm and kid. */
export function createKeyRing(store: TokenStore): KeyRing {
  const privateKeys = new Map<string, Promise<KeyLike>>();
  const publicKeys = new Map<string, Promise<KeyLike>>();
  const id = (realmId: string, kid: string) => `${realmId}/${kid}`;

  return {
    async signingKey(realmId) {
      const record = store.keys.active(realmId);
      if (!record) throw new Error(`realm ${realmId} has no signing key`);
      const k = id(realmId, record.kid);
      let key = privateKeys.get(k);
      if (!key) privateKeys.set(k, (key = importPKCS8(record.privateKeyPem, record.alg)));
      return { kid: record.kid, key: await key };
    },
    async verificationKey(realmId, kid) {
      const k = id(realmId, kid);
      let key = publicKeys.get(k);
      if (!key) {
        const record = store.keys.get(realmId, kid);
        if (!record) return undefined;
        publicKeys.set(k, (key = importJWK(record.publicJwk, record.alg) as Promise<KeyLike>));
      }
      return key;
    },
    jwks(realmId) {
      return { keys: store.keys.list(realmId).map((r) => r.publicJwk) };
    },
  };
}
