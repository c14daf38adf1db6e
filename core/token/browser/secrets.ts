import { createHash, randomBytes } from 'node:crypto';

/** A new unguessable value (256 bits, base64url): an authorization code, a cookie. */
export const newSecretValue = (): string => randomBytes(32).toString('base64url');

/** How a code or a cookie is kept: its SHA-256 (hex); the value itself never is. */
export const secretValueHash = (value: string): string => createHash('sha256').update(value).digest('hex');
