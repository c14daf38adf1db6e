import type { Logger } from 'pino';
import type { CallMeta } from '../context';
import { PlatformError } from '../errors';

/**
 * Audit events (docs/admin.md): every administrative change and every security event, append-only,
 * with who, what, when, from where and the outcome. Never a secret: details hold names, ids,
 * counts and flags, not passwords, client secrets, keys or tokens (`safeDetails` drops them).
 */
export type AuditOutcome = 'success' | 'failure';

/** Who acted: an administrator's token, a person or client signing in, an LM key, the local CLI, the platform itself (`system`: a budget's warning). */
export interface AuditActor {
  kind: 'user' | 'client' | 'key' | 'cli' | 'anonymous' | 'system';
  /** Its realm, when it has one. */
  realm?: string;
  /** A token's subject, a key's id. */
  id?: string;
  /** A username, client id or key prefix. */
  name?: string;
}

export interface NewAuditEvent {
  /** `<object>.<verb>` for changes (`client.create`, `user.roles`), `<area>.<event>` for security events (`login.failure`). */
  type: string;
  outcome: AuditOutcome;
  actor: AuditActor;
  /** The realm the event happened in (the object's), when any. */
  realm?: string;
  /** The tenant whose object it is, when any. */
  tenant?: string;
  /** What it acted on: `{ kind: 'client', id: 'my-app' }`. */
  target?: { kind: string; id: string };
  /** The caller's address (TRUST_PROXY applied). */
  address?: string;
  /** The service that recorded it. */
  service: string;
  /** Why it failed (an error's message), for failures. */
  reason?: string;
  details?: Record<string, AuditValue>;
}
export type AuditValue = string | number | boolean | null | readonly string[];

export interface AuditEvent extends NewAuditEvent {
  id: string;
  /** Epoch milliseconds. */
  time: number;
}

/** What a query of the audit trail may ask; every field narrows it. */
export interface AuditQuery {
  /** Epoch milliseconds, inclusive. */
  from?: number;
  /** Epoch milliseconds, exclusive. */
  to?: number;
  /** The actor's name or id. */
  actor?: string;
  realm?: string;
  /** Exact type, or a prefix ending in `.` (`client.`). */
  type?: string;
  outcome?: AuditOutcome;
  tenant?: string;
  /** Newest first by default. */
  order?: 'asc' | 'desc';
  limit: number;
  /** Where the previous page ended (opaque). */
  cursor?: string;
}

export interface AuditPage {
  events: AuditEvent[];
  /** The next page's cursor, null at the end. */
  nextCursor: string | null;
}

/** Where events are kept: a SQLite file of the data directory, or PostgreSQL's `audit_events` shared by replicas. */
export interface AuditStore {
  append(event: AuditEvent): Promise<void>;
  query(q: AuditQuery): Promise<AuditPage>;
  /** Drops events older than `before` (epoch ms): how many. */
  prune(before: number): Promise<number>;
  close(): void | Promise<void>;
}

/** What services record through: each event is stored and logged; a store that fails is logged, never the caller's failure. */
export interface AuditTrail {
  record(event: NewAuditEvent): Promise<void>;
  query(q: AuditQuery): Promise<AuditPage>;
  prune(before: number): Promise<number>;
}

/** Names of secrets, compared on the key's letters (`client_secret`, `apiKey`, `access-token`, `password_hash`); `token_budget` or `passages` are not. */
const SECRET = /(password|passwd|passphrase|secret|apikey|credentials?|authorization|cookie|hash|token)$/;
const secretNamed = (key: string) => SECRET.test(key.toLowerCase().replace(/[^a-z]/g, ''));

/** Details without anything named like a secret, strings capped at 512 characters, lists at 100 entries. */
export function safeDetails(details: Record<string, unknown> | undefined): Record<string, AuditValue> | undefined {
  if (!details) return undefined;
  const out: Record<string, AuditValue> = {};
  for (const [k, v] of Object.entries(details)) {
    if (secretNamed(k) || v === undefined) continue;
    if (typeof v === 'string') out[k] = v.slice(0, 512);
    else if (typeof v === 'number' || typeof v === 'boolean' || v === null) out[k] = v;
    else if (Array.isArray(v)) out[k] = v.slice(0, 100).map((x) => String(x).slice(0, 512));
  }
  return out;
}

export function auditTrail(opts: { store: AuditStore; log: Logger; clock: { now(): number }; newId: () => string }): AuditTrail {
  const { store, log, clock } = opts;
  return {
    async record(e) {
      const event: AuditEvent = { ...e, details: safeDetails(e.details), id: opts.newId(), time: clock.now() };
      log.info({ audit: event }, `audit ${event.type} ${event.outcome}`);
      await store.append(event).catch((err: unknown) => log.error({ err, audit: event.id }, 'audit: the event could not be stored'));
    },
    query: (q) => store.query(q),
    prune: (before) => store.prune(before),
  };
}

/** Records nothing (tests of a core alone). */
export const noAudit: AuditTrail = {
  record: async () => undefined,
  query: async () => ({ events: [], nextCursor: null }),
  prune: async () => 0,
};

/** An administrator's change, as its event starts: who, from where, in which service. */
export const changeBy = (
  admin: { actor: AuditActor },
  meta: CallMeta,
  service: string,
  type: string,
  at: { realm?: string; tenant?: string; target?: { kind: string; id: string } } = {},
): Omit<NewAuditEvent, 'outcome'> => ({ type, actor: admin.actor, address: meta.clientAddress, service, ...at });

/**
 * Runs an administrative change and records it: success with `details` of what it returned, or
 * failure with the error's message (an unexpected error says only `internal error`); rethrows.
 */
export async function audited<T>(
  audit: AuditTrail,
  event: Omit<NewAuditEvent, 'outcome'>,
  run: () => Promise<T>,
  details?: (result: T) => Record<string, unknown>,
): Promise<T> {
  let result: T;
  try {
    result = await run();
  } catch (err) {
    const reason = err instanceof PlatformError && err.expose ? err.message : 'internal error';
    await audit.record({ ...event, outcome: 'failure', reason });
    throw err;
  }
  await audit.record({ ...event, outcome: 'success', details: { ...event.details, ...safeDetails(details?.(result)) } });
  return result;
}
