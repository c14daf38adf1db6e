import { randomUUID } from 'node:crypto';

/**
 * A UUIDv7 (RFC 9562): 48 bits of milliseconds, then 74 random bits. Rows keyed by it are written in
 * time order, so a B-tree appends instead of touching a random page for each insert (sessions: one
 * per token). It tells when it was made, which the tokens that carry it tell anyway (`iat`).
 */
export function uuidv7(now: number = Date.now()): string {
  const random = randomUUID();
  const ts = Math.max(0, Math.floor(now)).toString(16).padStart(12, '0').slice(-12);
  // randomUUID is xxxxxxxx-xxxx-4xxx-Vxxx-xxxxxxxxxxxx: keep its random bits and RFC 4122 variant.
  return `${ts.slice(0, 8)}-${ts.slice(8, 12)}-7${random.slice(15)}`;
}

/** 122 random bits as 32 hex characters, for response ids (randomUUID draws from a pooled buffer: no system call each). */
export const opaqueId = (): string => randomUUID().replace(/-/g, '');
