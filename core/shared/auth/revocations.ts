import { createHash } from 'node:crypto';
import type { Clock } from '../clock';

/**
 * The revoked-sessions list: what ends access tokens before they expire, held in memory by every
 * process that verifies them and followed in the background (revocation-feed.ts), so a request
 * costs a map lookup, never a call to the token service or a database.
 *
 * - `session`: one session ended (logout, RFC 7009 revocation, a refresh token used twice);
 *   `subject` is its id (`sid`).
 * - `user`, `client`, `realm`: every session of a user, of a client, or of a realm ended at once
 *   (disabled, password set, logged out everywhere); `subject` is the SHA-256 of the user's id or
 *   the client's id, the realm's id itself. It covers every session that started at or before
 *   `upTo` (a session's id is a UUIDv7 and tells when it started), so one entry covers a client's
 *   hundred thousand sessions, and a session started after it (the user enabled again) is not.
 *
 * An entry is kept until `until` (the last moment an access token of those sessions can expire)
 * plus the verifier's clock tolerance; after that the tokens it covers are refused as expired.
 */
export type RevocationKind = 'session' | 'user' | 'client' | 'realm';

export interface Revocation {
  realm: string;
  kind: RevocationKind;
  subject: string;
  /** Epoch ms: user, client and realm entries cover the sessions started at or before it (0 for `session`). */
  upTo: number;
  /** Epoch ms: no access token it covers is valid past this (before clock tolerance). */
  until: number;
}

/** How a user's or client's id appears in the list (and at the token service's public endpoint): hashed. */
export const hashedSubject = (id: string): string => createHash('sha256').update(id).digest('base64url').slice(0, 22);

/** The subject of an entry for `kind` and a user id, client id, session id or realm id. */
export const revocationSubject = (kind: RevocationKind, id: string): string =>
  kind === 'user' || kind === 'client' ? hashedSubject(id) : id;

const V7 = /^([0-9a-f]{8})-([0-9a-f]{4})-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

/** When a session started, from its UUIDv7 id; -Infinity for any other id (sessions made before ids were UUIDv7s). */
export function sessionStartedAt(sid: string): number {
  const m = V7.exec(sid);
  return m ? parseInt(m[1] + m[2], 16) : -Infinity;
}

/** What of a verified access token the list is checked against. */
export interface SessionOf {
  realm: string;
  /** `sid` */
  sessionId: string;
  /** `sub`: the user's id, or the client's for a service account's token. */
  subject: string;
  /** `azp`: the client the session belongs to. */
  clientId: string;
}

export interface RevocationList {
  /** Whether the token's session was ended: synchronous, in memory. */
  revoked(this: void, session: SessionOf): boolean;
  /** Adds entries; `replace` drops every entry first (a full reload). Tells the watchers of sessions it ends. */
  apply(entries: readonly Revocation[], replace?: boolean): void;
  /** Drops entries whose tokens have all expired (run on every apply and by the follower's timer). */
  prune(): void;
  /** Calls `ended` once, when `session` is revoked (a stream that must end); returns the unwatch. */
  watch(session: SessionOf, ended: () => void): () => void;
  /** Entries held (sessions, then principals). */
  size(): number;
}

export interface RevocationListOptions {
  clock: Clock;
  /** Kept past `until` by this much: the verifier's clock tolerance (TOKEN_CLOCK_SKEW_SECONDS). */
  toleranceMs: number;
}

const principalKey = (kind: RevocationKind, subject: string) => `${kind}:${subject}`;

/** Hashes of the ids tokens carry, remembered (a few thousand callers are most of a realm's traffic): a lookup instead of SHA-256 per request. */
const MAX_HASHES = 10_000;

export function createRevocationList(opts: RevocationListOptions): RevocationList {
  /** Session id → until. */
  const sessions = new Map<string, number>();
  /** Realm → `kind:subject` → { upTo, until }. */
  const principals = new Map<string, Map<string, { upTo: number; until: number }>>();
  const watchers = new Set<{ session: SessionOf; ended: () => void }>();
  const hashes = new Map<string, string>();
  const hashed = (id: string) => {
    let h = hashes.get(id);
    if (h === undefined) {
      if (hashes.size >= MAX_HASHES) hashes.clear();
      hashes.set(id, (h = hashedSubject(id)));
    }
    return h;
  };

  const revoked = (s: SessionOf): boolean => {
    if (sessions.has(s.sessionId)) return true;
    const of = principals.get(s.realm);
    if (!of) return false;
    const started = sessionStartedAt(s.sessionId);
    const covers = (key: string) => {
      const e = of.get(key);
      return e !== undefined && started <= e.upTo;
    };
    return (
      covers(principalKey('realm', s.realm)) ||
      covers(principalKey('user', hashed(s.subject))) ||
      covers(principalKey('client', hashed(s.clientId)))
    );
  };

  const prune = () => {
    const before = opts.clock.now() - opts.toleranceMs;
    for (const [sid, until] of sessions) if (until < before) sessions.delete(sid);
    for (const [realm, of] of principals) {
      for (const [key, e] of of) if (e.until < before) of.delete(key);
      if (of.size === 0) principals.delete(realm);
    }
  };

  const add = (e: Revocation) => {
    if (e.kind === 'session') {
      sessions.set(e.subject, Math.max(e.until, sessions.get(e.subject) ?? 0));
      return;
    }
    let of = principals.get(e.realm);
    if (!of) principals.set(e.realm, (of = new Map<string, { upTo: number; until: number }>()));
    const key = principalKey(e.kind, e.subject);
    const had = of.get(key);
    of.set(key, { upTo: Math.max(e.upTo, had?.upTo ?? -Infinity), until: Math.max(e.until, had?.until ?? 0) });
  };

  return {
    revoked,
    apply(entries, replace = false) {
      if (replace) {
        sessions.clear();
        principals.clear();
      }
      entries.forEach(add);
      prune();
      for (const w of watchers) {
        if (!revoked(w.session)) continue;
        watchers.delete(w);
        w.ended();
      }
    },
    prune,
    watch(session, ended) {
      const w = { session, ended };
      watchers.add(w);
      return () => void watchers.delete(w);
    },
    size: () => sessions.size + [...principals.values()].reduce((n, of) => n + of.size, 0),
  };
}
