import { randomUUID } from 'node:crypto';
import { describeReplicas, eventually, REDIS_URL, startReplicas } from '../../shared/replicas';
import { platformCli } from '../shared/server';
import { tcpProxy, viaProxy } from '../../shared/tcp-proxy';
import { DATABASE_URL } from '../../shared/postgres';

const form = (body: Record<string, string>) => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(body).toString(),
});

async function clientToken(base: string, creds: Record<string, string>): Promise<string> {
  const res = await fetch(
    `${base}/auth/api/v1/oauth/connect/token`,
    form({ client_id: creds.client_id, client_secret: creds.client_secret }),
  );
  return ((await res.json()) as { access_token: string }).access_token;
}

const createObject = (base: string, token: string, title: string) =>
  fetch(`${base}/cl/search/api/v2/objects`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ title, content: `${title}: glaciers retreat as the climate warms.` }),
  });

describeReplicas('faults: a replica killed mid-ingest, the database restarted mid-traffic', () => {
  it('kill -9 of a replica in the middle of an ingest loses nothing it acknowledged', async () => {
    const set = await startReplicas({ count: 2 });
    try {
      const creds = set.credentials();
      const [a, b] = set.replicas.map((r) => r.url) as [string, string];
      const token = await clientToken(a, creds);
      const acknowledged: string[] = [];
      let sent = 0;
      let killed: Promise<unknown> | undefined;
      const worker = async () => {
        while (sent < 400 && !killed) {
          const n = sent++;
          const res = await createObject(a, token, `ingest ${n}`).catch(() => undefined);
          if (res?.status === 201) acknowledged.push(((await res.json()) as { object_id: string }).object_id);
          if (acknowledged.length >= 40 && !killed) killed = set.kill(0);
        }
      };
      await Promise.all(Array.from({ length: 8 }, worker));
      await killed;
      expect(acknowledged.length).toBeGreaterThanOrEqual(40);
      const auth = { authorization: `Bearer ${await clientToken(b, creds)}` };
      const statuses = await Promise.all(
        acknowledged.map((id) => fetch(`${b}/cl/search/api/v2/objects/${id}`, { headers: auth }).then((r) => r.status)),
      );
      expect(statuses.filter((s) => s !== 200)).toEqual([]);
      // Started again, the killed replica serves them too.
      await set.restart(0);
      const again = await Promise.all(
        acknowledged.slice(0, 10).map((id) => fetch(`${a}/cl/search/api/v2/objects/${id}`, { headers: auth }).then((r) => r.status)),
      );
      expect(again).toEqual(Array(10).fill(200));
    } finally {
      await set.stop();
    }
  }, 180_000);

  it('PostgreSQL going away under traffic: 503 with Retry-After, never a 500; the replicas recover by themselves, nothing acknowledged is lost', async () => {
    const target = new URL(DATABASE_URL!);
    const proxy = await tcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const set = await startReplicas({ count: 2, databaseUrl: (fresh) => viaProxy(fresh, proxy.port) });
    const statuses = new Map<number, number>();
    let stop = false;
    try {
      const creds = set.credentials();
      const urls = set.replicas.map((r) => r.url);
      const token = await clientToken(urls[0], creds);
      const acknowledged: string[] = [];
      let missingRetryAfter = 0;
      let n = 0;
      const worker = async (w: number) => {
        while (!stop) {
          const base = urls[(n + w) % urls.length];
          const i = n++;
          const res =
            i % 2
              ? await createObject(base, token, `traffic ${i} ${randomUUID()}`).catch(() => undefined)
              : await fetch(
                  `${base}/auth/api/v1/oauth/connect/token`,
                  form({ client_id: creds.client_id, client_secret: creds.client_secret }),
                ).catch(() => undefined);
          // A refused connection (a replica gone) must not spin: the test then fails on its checks.
          if (!res) {
            statuses.set(0, (statuses.get(0) ?? 0) + 1);
            await new Promise((r) => setTimeout(r, 50));
            continue;
          }
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          if (res.status === 503 && !res.headers.get('retry-after')) missingRetryAfter++;
          if (res.status === 201) acknowledged.push(((await res.json()) as { object_id: string }).object_id);
          else await res.arrayBuffer();
        }
      };
      const traffic = Promise.all([0, 1, 2, 3].map(worker));
      const count = (status: number) => statuses.get(status) ?? 0;
      // Traffic flowing: tokens issued and objects acknowledged.
      await eventually(() => count(200) >= 10 && count(201) >= 10);
      proxy.down();
      // The replicas notice: /readyz says so, and the traffic gets 503s.
      let during: Response | undefined;
      await eventually(async () => (during = await fetch(`${urls[0]}/readyz`)).status === 503, 20_000, 100);
      expect(await during!.json()).toMatchObject({ status: 'not ready', checks: { postgres: 'down' } });
      await eventually(() => count(503) >= 10);
      // The scenario: a database away for two seconds under traffic, not only for the moment it takes to notice.
      await new Promise((r) => setTimeout(r, 2000));
      proxy.up();
      // Back by themselves: every replica ready, and answering.
      for (const u of urls) await eventually(async () => (await fetch(`${u}/readyz`)).status === 200, 20_000, 200);
      const [tokens, objects] = [count(200), count(201)];
      await eventually(() => count(200) >= tokens + 10 && count(201) >= objects + 10);
      stop = true;
      await traffic;
      process.stdout.write(`database restart under traffic: ${JSON.stringify(Object.fromEntries(statuses))}\n`);
      expect(statuses.get(500)).toBeUndefined();
      expect(statuses.get(503)).toBeGreaterThan(0);
      expect(missingRetryAfter).toBe(0);
      // 0: no answer at all (a replica that died): none either.
      expect([...statuses.keys()].filter((s) => ![200, 201, 503].includes(s))).toEqual([]);
      const auth = { authorization: `Bearer ${await clientToken(urls[1], creds)}` };
      const found = await Promise.all(
        acknowledged.map((id) => fetch(`${urls[1]}/cl/search/api/v2/objects/${id}`, { headers: auth }).then((r) => r.status)),
      );
      expect(found.filter((s) => s !== 200)).toEqual([]);
    } catch (err) {
      stop = true;
      for (const r of set.replicas) process.stdout.write(`--- replica output:\n${r.process.output().slice(-3000)}\n`);
      throw err;
    } finally {
      proxy.up();
      await set.stop();
      await proxy.close();
    }
  }, 180_000);

  it('Redis going away: every feature goes on without it as documented (docs/redis.md), none hangs; /readyz says so until it is back', async () => {
    const target = new URL(REDIS_URL!);
    const proxy = await tcpProxy({ host: target.hostname, port: Number(target.port || 6379) });
    const set = await startReplicas({ count: 1, env: { REDIS_URL: viaProxy(REDIS_URL!, proxy.port) } });
    try {
      const creds = set.credentials();
      const base = set.replicas[0].url;
      const made = await platformCli(
        set.replicas[0].dataDir,
        ['key', 'create', '--name', 'redis-down', '--rpm', '100'],
        undefined,
        set.env,
      );
      const key = JSON.parse(made.stdout).api_key as string;
      const chat = () =>
        fetch(`${base}/proxy/api/v1/azure/openai/deployments/local-chat/chat/completions?api-version=2024-10-21`, {
          method: 'POST',
          headers: { 'api-key': key, 'content-type': 'application/json' },
          body: JSON.stringify({
            messages: [
              { role: 'system', content: 'Ice melts.' },
              { role: 'user', content: 'What melts?' },
            ],
          }),
        });
      const gql = () =>
        fetch(`${base}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'api-key': key },
          body: JSON.stringify({ query: '{ models { id } }' }),
        });
      expect((await chat()).status).toBe(200);
      proxy.down();
      // Token issue (failure throttle), a limited key's call (rpm, answer cache), a GraphQL query (persisted queries): all answer.
      expect((await clientToken(base, creds)).length).toBeGreaterThan(20);
      const wrong = await fetch(`${base}/auth/api/v1/oauth/connect/token`, form({ client_id: creds.client_id, client_secret: 'wrong' }));
      expect(wrong.status).toBe(401);
      const answered = await chat();
      expect(answered.status).toBe(200);
      expect(answered.headers.get('x-cache')).toBe('MISS');
      expect((await gql()).status).toBe(200);
      const during = await fetch(`${base}/readyz`);
      expect(during.status).toBe(503);
      expect(await during.json()).toMatchObject({ checks: { postgres: 'up', redis: 'down' } });
      proxy.up();
      await eventually(async () => (await fetch(`${base}/readyz`)).status === 200, 20_000, 200);
      expect((await chat()).status).toBe(200);
    } finally {
      proxy.up();
      await set.stop();
      await proxy.close();
    }
  }, 180_000);
});
