import { createHash } from 'node:crypto';
import { isIPv6 } from 'node:net';
import type { ClientRecord, UserRecord } from './ports';

/**
 * What failed authentications are counted against, besides the caller's source: the account a
 * slow check is for (a user, or a client whose secret is slow-hashed) and its realm.
 */
export interface Account {
  realm: string;
  /** The account's key in the failure counts; also for a name no account has, so the two behave alike. */
  key: string;
  /** Whose it is, as presented (a username or client id), for security events; not part of the counts. */
  kind?: 'user' | 'client';
  name?: string;
}

/** Wrong passwords per account and source before that source is refused for it, and per account before everyone is, within `seconds`. */
export interface LockoutPolicy {
  /** Per account and source (LOCKOUT_THRESHOLD). */
  threshold: number;
  /** Per account, all sources together (LOCKOUT_ACCOUNT_THRESHOLD); much higher. */
  accountThreshold: number;
  /** The window both are counted in, and so the longest a lock lasts (LOCKOUT_SECONDS). */
  seconds: number;
}

export const DEFAULT_LOCKOUT: LockoutPolicy = { threshold: 5, accountThreshold: 100, seconds: 900 };

/**
 * A secret's own generation: a new password (or client secret) starts its account's counts afresh,
 * so setting one lifts every lock on the account without finding its keys.
 */
const generation = (storedHash: string) => createHash('sha256').update(storedHash).digest('base64url').slice(0, 12);

/**
 * A user's account, or, for a name no user has, the name's (in lower case, as names are found).
 * Its counts are those of the user's version too: an administrator's unlock (or any change of the
 * user, each a new version) starts them afresh for every address, none of which need be known.
 */
export const userAccount = (realmId: string, username: string, found: UserRecord | undefined): Account => ({
  realm: realmId,
  key: found ? `u|${found.id}|${generation(`${found.passwordHash}|${found.version}`)}` : `n|${realmId}|${username.toLowerCase()}`,
  kind: 'user',
  name: found?.username ?? username,
});

/** A client whose secret is slow-hashed (chosen by a person, or kept from before the keyed hash). */
export const clientAccount = (client: ClientRecord): Account => ({
  realm: client.realmId,
  key: `c|${client.id}|${generation(client.secretHash ?? '')}`,
  kind: 'client',
  name: client.clientId,
});

/**
 * The source failures are counted per: an IPv4 address, or the /64 network of an IPv6 address
 * (what one subscriber or one LAN is given, so an attacker holding a /64 is one source, as a
 * household behind IPv4 NAT is). Anything else (no address: an in-process call) as it is.
 */
export function sourceOf(address: string | undefined): string {
  if (!address) return 'unknown';
  const bare = address.replace(/%.*$/, '');
  if (!isIPv6(bare)) return address;
  const [head = '', tail] = bare.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  // An embedded IPv4 tail takes two groups; only the first four groups are kept anyway.
  const width = (groups: string[]) => groups.reduce((n, g) => n + (g.includes('.') ? 2 : 1), 0);
  const groups = tail === undefined ? left : [...left, ...Array<string>(8 - width(left) - width(right)).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}
