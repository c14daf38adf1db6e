import { Writable } from 'node:stream';
import pino from 'pino';
import { pruneAudit, scheduleAuditRetention } from '../../../../bin/audit-retention';
import { auditTrail, type AuditEvent } from '../../../../core/shared/admin/audit';
import { memoryAuditStore } from '../../../../core/shared/admin/memory-audit';
import { loadConfig } from '../../../../core/shared/config';
import { recentErrors } from '../../../../core/shared/telemetry/recent-errors';
import { testClock } from '../../../shared/helpers';
import { eventually } from '../../../shared/wait';

const DAY = 86_400_000;

/** AUDIT_RETENTION_DAYS (bin/audit-retention.ts): events older than the retention go, now and every hour; 0 keeps them. */
describe('audit retention', () => {
  const setup = () => {
    const clock = testClock();
    const store = memoryAuditStore();
    const lines: string[] = [];
    const log = pino(
      { level: 'info' },
      new Writable({
        write(chunk: Buffer, _e, done) {
          lines.push(chunk.toString());
          done();
        },
      }),
    );
    const audit = auditTrail({ store, log, clock, newId: () => String(store.events.length) });
    const at = (daysAgo: number, id: string): AuditEvent => ({
      id,
      time: clock.now() - daysAgo * DAY,
      type: 'client.create',
      outcome: 'success',
      actor: { kind: 'cli', name: 'ops' },
      service: 'token',
    });
    for (const [days, id] of [
      [400, 'ancient'],
      [91, 'old'],
      [89, 'recent'],
      [0, 'today'],
    ] as const)
      void store.append(at(days, id));
    return { clock, store, log, lines, audit };
  };

  it('deletes events older than the retention, and logs how many', async () => {
    const { clock, store, log, lines, audit } = setup();
    expect(await pruneAudit(audit, 90, clock, log)).toBe(2);
    expect(store.events.map((e) => e.id)).toEqual(['recent', 'today']);
    expect(lines.join('')).toContain('deleted 2 events older than 90 days');
    expect(await pruneAudit(audit, 90, clock, log)).toBe(0);
  });

  it('runs at once and then on its period until stopped; 0 days keeps everything', async () => {
    jest.useFakeTimers();
    try {
      const { clock, store, log, audit } = setup();
      expect(scheduleAuditRetention(audit, 0, clock, log)).toBeInstanceOf(Function);
      await jest.advanceTimersByTimeAsync(2 * 3_600_000);
      expect(store.events).toHaveLength(4);

      const stop = scheduleAuditRetention(audit, 90, clock, log, 3_600_000);
      await jest.advanceTimersByTimeAsync(0);
      expect(store.events.map((e) => e.id)).toEqual(['recent', 'today']);
      clock.advance(2 * DAY);
      await jest.advanceTimersByTimeAsync(3_600_000);
      expect(store.events.map((e) => e.id)).toEqual(['today']);
      stop();
      clock.advance(365 * DAY);
      await jest.advanceTimersByTimeAsync(3_600_000);
      expect(store.events.map((e) => e.id)).toEqual(['today']);
    } finally {
      jest.useRealTimers();
    }
  });

  it("a failed pass is logged and kept among the process's recent errors (the overview's), as a failed job", async () => {
    const { clock, log, lines } = setup();
    const errors = recentErrors({ clock });
    const broken = auditTrail({
      store: { ...memoryAuditStore(), prune: async () => Promise.reject(new Error('SQLITE_BUSY: database is locked')) },
      log,
      clock,
      newId: () => 'x',
    });
    const stop = scheduleAuditRetention(broken, 90, clock, log, 3_600_000, errors);
    try {
      await eventually(() => errors.list().length === 1);
      expect(errors.list()[0]).toMatchObject({
        service: 'platform',
        where: 'job: audit retention',
        code: 'job_failed',
        message: 'SQLITE_BUSY: database is locked',
      });
      expect(lines.join('')).toContain('background job failed');
    } finally {
      stop();
    }
  });

  it('validates AUDIT_RETENTION_DAYS: 90 by default, 0 allowed, no negatives or fractions', () => {
    expect(loadConfig({}).AUDIT_RETENTION_DAYS).toBe(90);
    expect(loadConfig({ AUDIT_RETENTION_DAYS: '0' }).AUDIT_RETENTION_DAYS).toBe(0);
    for (const bad of ['-1', '1.5', 'forever']) expect(() => loadConfig({ AUDIT_RETENTION_DAYS: bad })).toThrow(/AUDIT_RETENTION_DAYS/);
  });
});
