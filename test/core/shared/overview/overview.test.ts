import type { Admin } from '../../../../core/shared/admin/access';
import { Forbidden, BadRequest } from '../../../../core/shared/errors';
import { memoryReplicaStore } from '../../../../core/shared/overview/memory-replicas';
import { createPlatformOverview } from '../../../../core/shared/overview/overview';
import type { ReplicaRow } from '../../../../core/shared/overview/replicas';
import { checkServices, noAnswer, type ServiceProbe } from '../../../../core/shared/overview/services';
import { testClock } from '../../../shared/helpers';

/**
 * core/shared/overview: what the platform knows about itself, by who asks (docs/admin.md): the
 * services' checks bounded in time, the replicas live or gone, their errors merged newest first.
 */
const platformAdmin: Admin = { platform: true, realm: 'r0', actor: { kind: 'user', name: 'admin' } };
const realmAdmin: Admin = { platform: false, realm: 'r1', actor: { kind: 'user', name: 'ra' } };

const ok: Pick<ServiceProbe, 'health' | 'readiness'> = { health: async () => undefined, readiness: async () => ({ ready: true }) };
const never = () => new Promise<never>(() => undefined);

const row = (id: string, over: Partial<ReplicaRow> = {}): ReplicaRow => ({
  id,
  host: 'h',
  pid: 1,
  worker: 0,
  version: '1.0.0',
  startedAt: 0,
  lastSeen: 0,
  everyMs: 5000,
  services: ['search'],
  errors: [],
  ...over,
});
const failure = (at: number, message: string) => ({ at, service: 'models', where: 'POST /x', code: 'upstream', message });

function overview(probes: ServiceProbe[] = []) {
  const clock = testClock(1_000_000_000);
  const store = memoryReplicaStore();
  const errors = [failure(clock.now() - 1, 'own, newest')];
  const self = () => row('me', { host: 'a', lastSeen: clock.now(), startedAt: 5, services: ['token', 'gateway'], errors });
  return { clock, store, o: createPlatformOverview({ version: '9.9.9', startedAt: 5, probes, store, self, clock, checkTimeoutMs: 50 }) };
}

describe('checking the services', () => {
  it('reports each: in process or remote, healthy or why not, ready or why not', async () => {
    const statuses = await checkServices(
      [
        { name: 'token', title: 'Token', ...ok },
        {
          name: 'search',
          title: 'Search',
          url: 'http://s:1',
          health: async () => undefined,
          readiness: async () => ({ ready: false, reason: 'search: loading' }),
        },
        {
          name: 'models',
          title: 'Models',
          url: 'http://m:1',
          health: async () => {
            throw new Error('unreachable: ECONNREFUSED');
          },
          readiness: async () => {
            throw new Error('unreachable: ECONNREFUSED');
          },
        },
      ],
      1000,
    );
    expect(statuses).toEqual([
      { name: 'token', title: 'Token', location: 'in_process', healthy: true, health: 'ok', ready: true },
      {
        name: 'search',
        title: 'Search',
        location: 'remote',
        url: 'http://s:1',
        healthy: true,
        health: 'ok',
        ready: false,
        reason: 'search: loading',
      },
      {
        name: 'models',
        title: 'Models',
        location: 'remote',
        url: 'http://m:1',
        healthy: false,
        health: 'unreachable: ECONNREFUSED',
        ready: false,
        reason: 'unreachable: ECONNREFUSED',
      },
    ]);
  });

  it('gives up on a check that does not answer, aborting it, and says so', async () => {
    let aborted = false;
    const [status] = await checkServices(
      [
        {
          name: 'chat',
          title: 'Chat',
          url: 'http://c:1',
          health: (signal) => {
            signal.addEventListener('abort', () => (aborted = true));
            return never();
          },
          readiness: never,
        },
      ],
      50,
    );
    expect(status).toMatchObject({ healthy: false, health: noAnswer(50), ready: false, reason: noAnswer(50) });
    expect(noAnswer(2000)).toBe('no answer within 2 s');
    expect(aborted).toBe(true);
  });
});

describe('the overview, by who asks', () => {
  it('tells any administrator the version, the start and the services; a realm administrator without addresses', async () => {
    const { o } = overview([{ name: 'search', title: 'Search', url: 'http://10.0.0.5:8082', ...ok }]);
    expect(o.about(realmAdmin)).toEqual({ version: '9.9.9', startedAt: 5 });
    expect((await o.services(platformAdmin))[0].url).toBe('http://10.0.0.5:8082');
    const [seen] = await o.services(realmAdmin);
    expect(seen).toMatchObject({ name: 'search', location: 'remote', healthy: true, ready: true });
    expect(seen).not.toHaveProperty('url');
  });

  it('refuses the replicas and the errors to a realm administrator', async () => {
    const { o } = overview();
    await expect(o.replicas(realmAdmin)).rejects.toBeInstanceOf(Forbidden);
    await expect(o.errors(realmAdmin)).rejects.toBeInstanceOf(Forbidden);
  });

  it('lists the replicas live first, this process fresh and marked current', async () => {
    const { o, store, clock } = overview();
    await store.put(row('me', { host: 'a', lastSeen: 0 }));
    await store.put(row('gone', { host: 'a', lastSeen: clock.now() - 15_001 }));
    await store.put(row('b2', { host: 'b', worker: 2, lastSeen: clock.now() - 15_000 }));
    await store.put(row('b1', { host: 'b', worker: 1, lastSeen: clock.now() - 1000 }));
    const list = await o.replicas(platformAdmin);
    expect(list.map((r) => [r.id, r.live, r.current])).toEqual([
      ['me', true, true],
      ['b1', true, false],
      ['b2', true, false],
      ['gone', false, false],
    ]);
    expect(list[0]).toMatchObject({ lastSeen: clock.now(), services: ['token', 'gateway'] });
    expect(list[0]).not.toHaveProperty('errors');
  });

  it("merges every replica's errors newest first, with where each happened, and pages them", async () => {
    const { o, store, clock } = overview();
    await store.put(
      row('b', { host: 'b', pid: 7, worker: 2, errors: [failure(clock.now() - 10, 'b older'), failure(clock.now(), 'b newest')] }),
    );
    await store.put(row('gone', { errors: [failure(clock.now() - 5, 'from a replica now gone')] }));
    const all = await o.errors(platformAdmin);
    expect(all.total).toBe(4);
    expect(all.items.map((e) => e.message)).toEqual(['b newest', 'own, newest', 'from a replica now gone', 'b older']);
    expect(all.items[0]).toMatchObject({ replica: 'b', host: 'b', pid: 7, worker: 2, service: 'models' });
    const two = await o.errors(platformAdmin, 2);
    expect(two).toMatchObject({ total: 4, items: [{ message: 'b newest' }, { message: 'own, newest' }] });
    for (const bad of [0, 201, 1.5]) await expect(o.errors(platformAdmin, bad)).rejects.toBeInstanceOf(BadRequest);
  });

  it('checks the services once for every page asking within a second', async () => {
    let checks = 0;
    const { o, clock } = overview([{ name: 'token', title: 'Token', ...ok, health: async () => void checks++ }]);
    await Promise.all([o.services(platformAdmin), o.services(realmAdmin), o.services(platformAdmin)]);
    expect(checks).toBe(1);
    clock.advance(1001);
    await o.services(platformAdmin);
    expect(checks).toBe(2);
  });
});
