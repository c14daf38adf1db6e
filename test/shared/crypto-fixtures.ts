import { createPrivateKey, createPublicKey, type JsonWebKey } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK } from 'jose';
import { generateRealmKey, SIGNING_ALG, type KeyGenerator } from '../../core/token/keys';
import { scryptHasher } from '../../core/token/secrets';
import fixtures from './fixtures/rsa-test-keys.json';

/** Real scrypt at a small cost (N=2^10): tests exercise the real code without paying OWASP's cost. */
export const fastHasher = scryptHasher({ N: 2 ** 10, r: 8, p: 1 });

/**
 * Real RSA keys made in advance (test/fixtures, published, for tests only), each handed out once
 * per test process, so realms keep distinct keys; a real one is generated when they run out.
 */
let next = 0;

export const pooledKeys: KeyGenerator = async (realmId, now) => {
  const jwk = fixtures.keys[next++] as JsonWebKey | undefined;
  if (!jwk) return generateRealmKey(realmId, now);
  const privateKey = createPrivateKey({ key: jwk, format: 'jwk' });
  const publicJwk = await exportJWK(createPublicKey(privateKey));
  const kid = await calculateJwkThumbprint(publicJwk);
  return {
    kid,
    realmId,
    alg: SIGNING_ALG,
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicJwk: { ...publicJwk, kid, alg: SIGNING_ALG, use: 'sig' },
    createdAt: now,
  };
};
