import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import request from 'supertest';
import { inProcess } from '../../shared/in-process';
import { closedPort, modelsInProcess, type ModelsInProcess } from './fixture';
import { eventually } from '../../shared/wait';

const REDIS_URL = process.env.REDIS_URL;
const d = REDIS_URL ? describe : describe.skip;

/**
 * REDIS_URL: two platforms (two deployments, or two workers) share the response cache. Both are
 * the model gateway opened in this process, each with its own data dir, meeting only in Redis.
 */
d('model gateway: the Redis cache', () => {
  const started: ModelsInProcess[] = [];
  let admin: Redis | undefined;
  afterAll(async () => {
    for (const p of started) await p.close();
    admin?.disconnect();
  });

  it('an answer one platform got from its model is a HIT on the other, for the same tenant only', async () => {
    // A key prefix of their own: the entry the first writes is the only one under it.
    const env = { REDIS_URL: REDIS_URL!, REDIS_KEY_PREFIX: `test:${randomUUID()}:` };
    const [one, two] = [await modelsInProcess({ env }), await modelsInProcess({ env })];
    started.push(one, two);
    const redis = (admin = new Redis(REDIS_URL!));
    const entries = () => redis.keys(`${env.REDIS_KEY_PREFIX}models:cache:*`);
    // A tenant of its own, so no other run's entries can answer.
    const tenant = `redis-${randomUUID()}`;
    const keyOn = (p: ModelsInProcess, t: string) => p.newKey('r', '--tenant', t);
    const ask = async (p: ModelsInProcess, key: string) => {
      const res = await request(p.app)
        .post('/proxy/api/v1/azure/openai/deployments/local-chat/chat/completions?api-version=2024-10-21')
        .set({ 'content-type': 'application/json', 'api-key': key })
        .send(
          JSON.stringify({
            messages: [
              { role: 'system', content: 'Glaciers retreat. Seas rise as ice melts.' },
              { role: 'user', content: 'Why do seas rise?' },
            ],
          }),
        );
      return { cache: res.headers['x-cache'] as string | undefined, body: res.body };
    };
    const first = await ask(one, await keyOn(one, tenant));
    expect(first.cache).toBe('MISS');
    // The entry is written as the answer ends.
    await eventually(async () => (await entries()).length === 1);
    const second = await ask(two, await keyOn(two, tenant));
    expect(second.cache).toBe('HIT');
    expect(second.body.choices[0].message.content).toBe(first.body.choices[0].message.content);
    expect((await ask(two, await keyOn(two, `${tenant}-other`))).cache).toBe('MISS');
    await redis.del(...(await entries()));
  });

  it('a Redis that cannot be reached stops start-up with a message saying so', async () => {
    const closed = `redis://127.0.0.1:${await closedPort()}`;
    await expect(inProcess(['models'], { REDIS_URL: closed })).rejects.toThrow(/Redis at .* is unreachable/);
  });
});
