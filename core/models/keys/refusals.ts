import type { AuditTrail } from '../../shared/admin/audit';
import type { Clock } from '../../shared/clock';
import { mayBeKey, prefixOf } from './api-key';
import type { ApiKeys } from './keys';

/**
 * Refused LM keys as security events (`key.refused`, docs/admin.md): the key's listing prefix, the
 * caller's address and why (unknown, revoked, expired), never the text. A flood of bad keys must not
 * become a flood of writes: one event per address and prefix per window, at most `maxPerWindow`
 * events per window in all, the rest counted into the next event's `suppressed`. Recording is never
 * awaited by the refused call, and the memory it keeps is bounded.
 */
export interface RefusalOptions {
  audit: AuditTrail;
  clock: Clock;
  keys: Pick<ApiKeys, 'refusal'>;
  windowMs?: number;
  maxPerWindow?: number;
  /** Address-and-prefix pairs remembered at most. */
  maxTracked?: number;
}

export type RecordRefusal = (text: string, address: string | undefined) => void;

export function keyRefusals(opts: RefusalOptions): RecordRefusal {
  const { audit, clock, keys } = opts;
  const windowMs = opts.windowMs ?? 10_000;
  const maxPerWindow = opts.maxPerWindow ?? 100;
  const maxTracked = opts.maxTracked ?? 10_000;
  /** When each pair was last recorded, oldest first (a pair is moved to the end when recorded again). */
  const last = new Map<string, number>();
  let windowStart = 0;
  let inWindow = 0;
  let suppressed = 0;

  const forgetOld = (now: number) => {
    for (const [pair, at] of last) {
      if (at > now - windowMs && last.size <= maxTracked) break;
      last.delete(pair);
    }
  };

  return (text, address) => {
    const now = clock.now();
    // A text that cannot be a key is not one of ours: its first characters may be someone's secret elsewhere.
    const prefix = mayBeKey(text) ? prefixOf(text) : undefined;
    const pair = `${address ?? ''} ${prefix ?? ''}`;
    const seen = last.get(pair);
    if (seen !== undefined && seen > now - windowMs) {
      suppressed++;
      return;
    }
    if (now - windowStart >= windowMs) {
      windowStart = now;
      inWindow = 0;
    }
    if (inWindow >= maxPerWindow) {
      suppressed++;
      return;
    }
    inWindow++;
    last.delete(pair);
    last.set(pair, now);
    if (last.size > maxTracked) forgetOld(now);
    const dropped = suppressed;
    suppressed = 0;
    void keys
      .refusal(text)
      .catch(() => ({ reason: 'unknown key' as const, key: undefined }))
      .then(({ reason, key }) =>
        audit.record({
          type: 'key.refused',
          outcome: 'failure',
          actor: { kind: 'key', id: key?.id, name: prefix },
          ...(key && { realm: key.tenant, tenant: key.tenant, target: { kind: 'key', id: key.id } }),
          address,
          service: 'models',
          reason,
          details: dropped ? { suppressed: dropped } : undefined,
        }),
      )
      .catch(() => undefined);
  };
}
