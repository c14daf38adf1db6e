import { createHmac, sign, type KeyObject } from 'node:crypto';

/**
 * Compact JWS signing. RS256 runs on libuv's thread pool (crypto.sign with a callback), so an RSA
 * signature (about 0.7 ms of CPU) never blocks the event loop; HS512 is a cheap HMAC.
 */
const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');

export function signRs256(header: Record<string, unknown>, payload: object, key: KeyObject): Promise<string> {
  const input = `${part({ alg: 'RS256', ...header })}.${part(payload)}`;
  return new Promise((resolve, reject) => {
    sign('sha256', Buffer.from(input), key, (err, signature) =>
      err ? reject(err) : resolve(`${input}.${signature.toString('base64url')}`),
    );
  });
}

export function signHs512(header: Record<string, unknown>, payload: object, secret: Buffer): string {
  const input = `${part({ alg: 'HS512', ...header })}.${part(payload)}`;
  return `${input}.${createHmac('sha512', secret).update(input).digest('base64url')}`;
}
