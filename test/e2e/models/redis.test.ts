import { randomUUID } from 'node:crypto';
import { freePort, platformCli, startInTemp, type Started } from '../shared/server';

const REDIS_URL = process.env.REDIS_URL;
const d = REDIS_URL ? describe : describe.skip;

/** REDIS_URL: two platforms (two deployments, or two workers) share the response cache. */
d('model gateway: the Redis cache', () => {
  const started: Started[] = [];
  afterAll(async () => {
    for (const p of started) await p.stop();
  });

  it('an answer one platform got from its model is a HIT on the other, for the same tenant only', async () => {
    const [one, two] = [await startInTemp('all', { REDIS_URL: REDIS_URL! }), await startInTemp('all', { REDIS_URL: REDIS_URL! })];
    started.push(one!, two!);
    // A tenant of its own, so no other run's entries can answer.
    const tenant = `redis-${randomUUID()}`;
    const keyOn = async (p: Started, t: string) => JSON.parse((await platformCli(p.dataDir, ['key', 'create', '--name', 'r', '--tenant', t])).stdout).api_key as string;
    const ask = async (p: Started, key: string) => {
      const res = await fetch(`${p.url}/proxy/api/v1/azure/openai/deployments/local-chat/chat/completions?api-version=2024-10-21`, {
        method: 'POST', headers: { 'content-type': 'application/json', 'api-key': key },
        body: JSON.stringify({ messages: [{ role: 'system', content: 'Glaciers retreat. Seas rise as ice melts.' }, { role: 'user', content: 'Why do seas rise?' }] }),
      });
      return { cache: res.headers.get('x-cache'), body: (await res.json()) as any };
    };
    const first = await ask(one!, await keyOn(one!, tenant));
    expect(first.cache).toBe('MISS');
    await new Promise((r) => setTimeout(r, 100)); // the entry is written as the answer ends
    const second = await ask(two!, await keyOn(two!, tenant));
    expect(second.cache).toBe('HIT');
    expect(second.body.choices[0].message.content).toBe(first.body.choices[0].message.content);
    expect((await ask(two!, await keyOn(two!, `${tenant}-other`))).cache).toBe('MISS');
  }, 60_000);

  it('a Redis that cannot be reached stops start-up with a message saying so', async () => {
    const closed = `redis://127.0.0.1:${await freePort()}`;
    await expect(startInTemp('all', { REDIS_URL: closed })).rejects.toThrow(/Redis at .* is unreachable/);
  });
});
