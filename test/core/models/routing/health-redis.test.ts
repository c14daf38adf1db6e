import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { redisDeploymentHealth, type RedisDeploymentHealth } from '../../../../core/models/redis/deployment-health';
import type { DeploymentRef } from '../../../../core/models/routing/health';
import { deploymentHealthContract } from './health-contract';

// Needs a real Redis: this machine runs one at redis://127.0.0.1:6379 and CI sets REDIS_URL.
const url = process.env.REDIS_URL;
const d = url ? describe : describe.skip;

const clients: Redis[] = [];
const prefixes: string[] = [];
/** A client and a prefix of the test's own, both removed after it. */
const fresh = () => {
  const client = new Redis(url!);
  clients.push(client);
  const prefix = `test:health:${randomUUID()}:`;
  prefixes.push(prefix);
  return { client, prefix };
};
afterAll(async () => {
  if (!url) return;
  const admin = new Redis(url);
  for (const prefix of prefixes) {
    const keys = await admin.keys(`${prefix}*`);
    if (keys.length > 0) await admin.del(...keys);
  }
  admin.disconnect();
  clients.forEach((c) => c.disconnect());
});

/** Waits until `check` holds, the way a replica learns a message: no fixed delay. */
async function eventually(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setImmediate(r));
}

if (url) {
  deploymentHealthContract('Redis, one replica', async () => {
    const { client, prefix } = fresh();
    const health = redisDeploymentHealth({ client, prefix });
    await health.ready;
    return { health, settle: () => health.settle() };
  });
}

d('deployment health shared through Redis', () => {
  const policy = { failures: 3, windowSeconds: 60, seconds: 30 };
  const a: DeploymentRef = { model: 'vendor/gpt-x:2025@eu', deployment: 'east' };
  const now = Date.now();
  let open: RedisDeploymentHealth[] = [];
  afterEach(async () => {
    await Promise.all(open.map((h) => h.close()));
    open = [];
  });
  const replicas = async (n: number, onCooldown?: (who: number) => void) => {
    const { client, prefix } = fresh();
    const own = (i: number) => {
      if (i === 0) return client;
      const other = client.duplicate();
      clients.push(other);
      return other;
    };
    const list = Array.from({ length: n }, (_, i) => redisDeploymentHealth({ client: own(i), prefix, onCooldown: () => onCooldown?.(i) }));
    open.push(...list);
    await Promise.all(list.map((h) => h.ready));
    return { list, client, prefix };
  };

  it('lets a cooldown one replica started be seen by the other at once', async () => {
    const counted: number[] = [];
    const { list } = await replicas(2, (who) => counted.push(who));
    const [one, two] = list as [RedisDeploymentHealth, RedisDeploymentHealth];
    for (let i = 0; i < 3; i++) one.failed(a, policy, now + i, '500');
    expect(one.cooling(a.model, now + 2).get('east')).toBe(now + 30_002);
    await one.settle();
    await eventually(() => two.cooling(a.model, now + 2).has('east'));
    expect(two.cooling(a.model, now + 2).get('east')).toBe(now + 30_002);
    // Counted once, by the replica that started it.
    expect(counted).toEqual([0]);
  });

  it('counts failures of every replica together: two here and one there cool it down everywhere', async () => {
    const counted: number[] = [];
    const { list } = await replicas(2, (who) => counted.push(who));
    const [one, two] = list as [RedisDeploymentHealth, RedisDeploymentHealth];
    one.failed(a, policy, now, '500');
    one.failed(a, policy, now + 1, '500');
    await one.settle();
    two.failed(a, policy, now + 2, '502');
    await two.settle();
    expect(two.cooling(a.model, now + 2).get('east')).toBe(now + 30_002);
    await eventually(() => one.cooling(a.model, now + 2).has('east'));
    expect(counted).toEqual([1]);
  });

  it("shares a vendor's long Retry-After, and a replica started later reads the cooldowns already running", async () => {
    const { list, client, prefix } = await replicas(1);
    list[0].failed(a, policy, now, '429', now + 20 * 60_000);
    await list[0].settle();
    const lateClient = client.duplicate();
    clients.push(lateClient);
    const late = redisDeploymentHealth({ client: lateClient, prefix });
    open.push(late);
    await late.ready;
    expect(late.cooling(a.model, now).get('east')).toBe(now + 20 * 60_000);
    expect(await client.pttl(`${prefix}cooling:${encodeURIComponent(a.model)}:east`)).toBeGreaterThan(19 * 60_000);
  });

  it('keeps working on its own view while Redis is unreachable, and says so once', async () => {
    const client = new Redis({ port: 1, host: '127.0.0.1', enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => null });
    clients.push(client);
    const errors: string[] = [];
    const h = redisDeploymentHealth({ client, prefix: 'test:health:down:', onError: (op) => errors.push(op) });
    open.push(h);
    await h.ready;
    for (let i = 0; i < 3; i++) h.failed(a, policy, now + i, '500');
    await h.settle();
    expect(h.cooling(a.model, now + 2).get('east')).toBe(now + 30_002);
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.filter((op) => op === 'count' || op === 'share').length).toBe(1);
  });
});
