import type { AuditActor, AuditTrail, NewAuditEvent } from '../shared/admin/audit';
import type { Clock } from '../shared/clock';

/**
 * The token service's security events in the audit trail (docs/admin.md): sign-ins and their
 * failures, client authentication failures, lockouts, revocations and logouts. Each names who
 * (the username or client id as presented), where (the caller's address) and why it failed; never
 * a password, secret or token. Recording is best-effort and never awaited by a sign-in: a store
 * that is slow or down does not slow or fail authentication.
 *
 * A flood of failures must not become a flood of writes: the first failure of a (type, realm,
 * name, address) is recorded at once, the ones after it within the window are counted and recorded
 * as one event (`details.repeats`) when the window ends. At most `maxKeys` keys are tracked; past
 * that, failures of the realm are counted under one key with no name or address.
 */
export interface SecurityEvents {
  /** A person's password checked (password grant, the login page): `login.success` or `login.failure`. */
  signIn(e: {
    realm: string;
    username: string;
    address?: string;
    ok: boolean;
    reason?: string;
    details?: Record<string, string | boolean>;
  }): void;
  /** A client's credentials refused: `client.auth-failure`. */
  clientFailure(e: { realm: string; clientId: string; address?: string; reason: string }): void;
  /** A count filled: an account locked for an address or for everyone, or an address throttled: `login.lockout`. */
  lockout(e: { realm?: string; kind?: 'user' | 'client'; name?: string; address?: string; scope: LockScope }): void;
  /** A session ended by the revocation endpoint: `token.revoke`. */
  revoke(e: { realm: string; actor: AuditActor; address?: string; session: string }): void;
  /** A session ended by logout (RP-initiated, confirmed, or a client's back channel): `logout`. */
  logout(e: { realm: string; actor: AuditActor; address?: string; session: string; via: string }): void;
  /** Records the counted repeats now (closing). */
  flush(): void;
}

/** What filled: the address's own failure count, the account's from that address, the account's from everywhere. */
export type LockScope = 'address' | 'account-address' | 'account';

export const noSecurityEvents: SecurityEvents = {
  signIn: () => undefined,
  clientFailure: () => undefined,
  lockout: () => undefined,
  revoke: () => undefined,
  logout: () => undefined,
  flush: () => undefined,
};

/** Names as presented are capped: a username field can hold anything a caller types. */
const cap = (s: string | undefined) => (s === undefined ? undefined : s.slice(0, 128));

export function securityEvents(audit: AuditTrail, opts: { clock?: Clock; windowMs?: number; maxKeys?: number } = {}): SecurityEvents {
  const windowMs = opts.windowMs ?? 10_000;
  const maxKeys = opts.maxKeys ?? 10_000;
  interface Pending {
    event: NewAuditEvent;
    repeats: number;
    timer: NodeJS.Timeout;
  }
  const pending = new Map<string, Pending>();

  const write = (event: NewAuditEvent) => {
    // record() logs and stores, and reports a store's failure itself: nothing to wait for here.
    void audit.record(event);
  };
  const settle = (key: string) => {
    const p = pending.get(key);
    if (!p) return;
    pending.delete(key);
    clearTimeout(p.timer);
    if (p.repeats > 0) write({ ...p.event, details: { ...p.event.details, repeats: p.repeats, window_seconds: windowMs / 1000 } });
  };
  /** A failure: recorded now when it is the first of its key in the window, else counted. */
  const failure = (event: NewAuditEvent) => {
    let key = JSON.stringify([event.type, event.realm, event.actor.name, event.address]);
    if (!pending.has(key) && pending.size >= maxKeys) {
      key = JSON.stringify([event.type, event.realm, '*']);
      event = {
        ...event,
        actor: { kind: event.actor.kind, realm: event.actor.realm },
        address: undefined,
        details: { ...event.details, many_sources: true },
      };
    }
    const known = pending.get(key);
    if (known) {
      known.repeats++;
      return;
    }
    const timer = setTimeout(() => settle(key), windowMs);
    timer.unref();
    pending.set(key, { event, repeats: 0, timer });
    write(event);
  };

  return {
    signIn(e) {
      const event: NewAuditEvent = {
        type: e.ok ? 'login.success' : 'login.failure',
        outcome: e.ok ? 'success' : 'failure',
        actor: { kind: 'user', realm: e.realm, name: cap(e.username) },
        realm: e.realm,
        address: e.address,
        service: 'token',
        reason: e.reason,
        details: e.details,
      };
      if (e.ok) write(event);
      else failure(event);
    },
    clientFailure(e) {
      failure({
        type: 'client.auth-failure',
        outcome: 'failure',
        actor: { kind: 'client', realm: e.realm, name: cap(e.clientId) },
        realm: e.realm,
        target: { kind: 'client', id: cap(e.clientId)! },
        address: e.address,
        service: 'token',
        reason: e.reason,
      });
    },
    lockout(e) {
      // A lock is told once per window of its count already (attempt.ts): no coalescing needed.
      write({
        type: 'login.lockout',
        outcome: 'failure',
        actor: e.kind ? { kind: e.kind, realm: e.realm, name: cap(e.name) } : { kind: 'anonymous' },
        realm: e.realm,
        address: e.address,
        service: 'token',
        reason:
          e.scope === 'address'
            ? 'too many failed authentications from this address'
            : e.scope === 'account'
              ? 'too many failed sign-ins on this account: locked for every address'
              : 'too many failed sign-ins on this account from this address',
        details: { scope: e.scope },
      });
    },
    revoke(e) {
      write({
        type: 'token.revoke',
        outcome: 'success',
        actor: e.actor,
        realm: e.realm,
        target: { kind: 'session', id: e.session },
        address: e.address,
        service: 'token',
      });
    },
    logout(e) {
      write({
        type: 'logout',
        outcome: 'success',
        actor: e.actor,
        realm: e.realm,
        target: { kind: 'session', id: e.session },
        address: e.address,
        service: 'token',
        details: { via: e.via },
      });
    },
    flush() {
      for (const key of [...pending.keys()]) settle(key);
    },
  };
}
