import type { Logger } from 'pino';
import type { AuditTrail } from '../core/shared/admin/audit';
import type { Clock } from '../core/shared/clock';
import { describeError, noRecentErrors, type RecentErrors } from '../core/shared/telemetry/recent-errors';

const DAY_MS = 86_400_000;
export const AUDIT_PRUNE_EVERY_MS = 3_600_000;

/**
 * AUDIT_RETENTION_DAYS: deletes audit events older than that many days, now and every hour, in the
 * process that runs the background jobs (with replicas, each such process: the delete is the
 * same statement, so running it twice is harmless). 0 keeps every event. Returns the stopper.
 */
export function scheduleAuditRetention(
  audit: AuditTrail,
  days: number,
  clock: Clock,
  log: Logger,
  everyMs = AUDIT_PRUNE_EVERY_MS,
  errors: RecentErrors = noRecentErrors,
): () => void {
  if (days <= 0) return () => undefined;
  const prune = () =>
    pruneAudit(audit, days, clock, log).catch((err: unknown) => {
      log.error({ err, job: 'audit retention' }, 'background job failed');
      errors.record({ service: 'platform', where: 'job: audit retention', code: 'job_failed', message: describeError(err) });
    });
  void prune();
  const timer = setInterval(() => void prune(), everyMs);
  timer.unref();
  return () => clearInterval(timer);
}

/** One pass: how many events it deleted (logged when any). */
export async function pruneAudit(audit: AuditTrail, days: number, clock: Clock, log: Logger): Promise<number> {
  const before = clock.now() - days * DAY_MS;
  const pruned = await audit.prune(before);
  if (pruned > 0)
    log.info(
      { pruned, before: new Date(before).toISOString(), retention_days: days },
      `audit: deleted ${pruned} events older than ${days} days`,
    );
  return pruned;
}
