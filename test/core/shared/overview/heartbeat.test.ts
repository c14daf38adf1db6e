import pino from 'pino';
import { loadConfig } from '../../../../core/shared/config';
import { startHeartbeats, type ReplicaSelf } from '../../../../core/shared/overview/heartbeat';
import { memoryReplicaStore } from '../../../../core/shared/overview/memory-replicas';
import { GONE_AFTER_BEATS, isLive, KEEP_MS, type ReplicaRow, type ReplicaStore } from '../../../../core/shared/overview/replicas';
import { recentErrors } from '../../../../core/shared/telemetry/recent-errors';
import { testClock } from '../../../shared/helpers';

/** core/shared/overview/heartbeat.ts: a process's row, written at each beat with its errors; gone after three; pruned after a day. */
const self: ReplicaSelf = { id: 'r-1', host: 'h1', pid: 42, worker: 1, version: '1.2.3', startedAt: 0, services: ['token', 'gateway'] };
const silent = pino({ level: 'silent' });

function started(store: ReplicaStore = memoryReplicaStore()) {
  const clock = testClock();
  const errors = recentErrors({ clock });
  const beats = startHeartbeats({ store, self: { ...self, startedAt: clock.now() }, errors, clock, log: silent, everyMs: 5000 });
  return { store, clock, errors, beats };
}

describe('heartbeats', () => {
  it("write the process's row with its recent errors at each beat, replacing the last", async () => {
    const { store, clock, errors, beats } = started();
    try {
      await beats.beat();
      const first = (await store.list())[0];
      expect(first).toMatchObject({ id: 'r-1', host: 'h1', pid: 42, worker: 1, version: '1.2.3', everyMs: 5000, errors: [] });
      expect(first.lastSeen).toBe(clock.now());
      errors.record({ service: 'models', where: 'POST /x', code: 'upstream', message: 'the vendor answered 500' });
      clock.advance(5000);
      await beats.beat();
      const rows = await store.list();
      expect(rows).toHaveLength(1);
      expect(rows[0].lastSeen).toBe(first.lastSeen + 5000);
      expect(rows[0].errors.map((e) => e.message)).toEqual(['the vendor answered 500']);
      expect(beats.current()).toMatchObject({ id: 'r-1', lastSeen: clock.now(), errors: rows[0].errors });
    } finally {
      beats.stop();
    }
  });

  it('come every HEARTBEAT_SECONDS: 5 by default, from 1 to 300', () => {
    expect(loadConfig({}).HEARTBEAT_SECONDS).toBe(5);
    expect(loadConfig({ HEARTBEAT_SECONDS: '1' }).HEARTBEAT_SECONDS).toBe(1);
    for (const bad of ['0', '301', '1.5', 'often']) expect(() => loadConfig({ HEARTBEAT_SECONDS: bad })).toThrow(/HEARTBEAT_SECONDS/);
  });

  it('count a replica live for three of its heartbeats, then gone', () => {
    const row = { lastSeen: 1_000_000, everyMs: 5000 };
    expect(GONE_AFTER_BEATS).toBe(3);
    expect(isLive(row, 1_000_000)).toBe(true);
    expect(isLive(row, 1_000_000 + 15_000)).toBe(true);
    expect(isLive(row, 1_000_000 + 15_001)).toBe(false);
    // Its own interval counts, not the reader's.
    expect(isLive({ lastSeen: 1_000_000, everyMs: 60_000 }, 1_000_000 + 120_000)).toBe(true);
  });

  it('delete rows not seen for a day, at the first beat and then hourly', async () => {
    const store = memoryReplicaStore();
    const old = (id: string, lastSeen: number): ReplicaRow => ({ ...self, id, lastSeen, everyMs: 5000, errors: [] });
    const { clock, beats } = started(store);
    try {
      await store.put(old('day-old', clock.now() - KEEP_MS - 1));
      await store.put(old('hour-old', clock.now() - 3_600_000));
      await beats.beat();
      expect((await store.list()).map((r) => r.id).sort()).toEqual(['hour-old', 'r-1']);
      // The hour-old row passes the day mark a day later; the next hourly prune takes it.
      clock.advance(KEEP_MS - 3_600_000 + 1);
      await beats.beat();
      expect((await store.list()).map((r) => r.id)).toEqual(['r-1']);
    } finally {
      beats.stop();
    }
  });

  it('log a store that fails once per outage, and never throw', async () => {
    const lines: string[] = [];
    const log = pino({ level: 'info' }, { write: (l: string) => void lines.push(l) });
    let down = true;
    const memory = memoryReplicaStore();
    const store: ReplicaStore = {
      ...memory,
      put: async (r) => {
        if (down) throw new Error('database is away');
        return memory.put(r);
      },
    };
    const clock = testClock();
    const beats = startHeartbeats({ store, self, errors: recentErrors({ clock }), clock, log, everyMs: 5000 });
    try {
      await beats.beat();
      await beats.beat();
      expect(lines.filter((l) => l.includes('could not be written'))).toHaveLength(1);
      down = false;
      await beats.beat();
      expect(lines.some((l) => l.includes('written again'))).toBe(true);
      expect(await memory.list()).toHaveLength(1);
    } finally {
      beats.stop();
    }
  });
});
