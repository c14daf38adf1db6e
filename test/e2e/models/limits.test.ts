import { platformCli, startInTemp, type Started } from '../shared/server';

/** A key's request rate and monthly token budget, enforced on every route and visible in usage. */
describe('model gateway: key limits', () => {
  let p: Started;
  beforeAll(async () => {
    p = await startInTemp('all');
  }, 60_000);
  afterAll(() => p.stop());

  const newKey = async (...flags: string[]) => {
    const r = await platformCli(p.dataDir, ['key', 'create', '--name', 'limited', ...flags]);
    expect(r.status).toBe(0);
    return JSON.parse(r.stdout).api_key as string;
  };
  const ask = async (key: string) => {
    const res = await fetch(`${p.url}/proxy/api/v1/azure/openai/deployments/local-chat/chat/completions?api-version=2024-10-21-preview`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'api-key': key },
      body: JSON.stringify({ messages: [{ role: 'system', content: 'Ice melts in the sun. Sea levels rise.' }, { role: 'user', content: 'Why do sea levels rise?' }] }),
    });
    return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as any };
  };

  it('a key limited to 2 requests a minute gets 429 with Retry-After on the third, in the route format', async () => {
    const key = await newKey('--rpm', '2');
    const statuses = (await Promise.all([1, 2, 3, 4].map(() => ask(key))));
    expect(statuses.map((s) => s.status).sort()).toEqual([200, 200, 429, 429]);
    const refused = statuses.find((s) => s.status === 429)!;
    expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(refused.body.error).toMatchObject({ code: 'rate_limit_exceeded', type: 'rate_limit_error' });
  });

  it('a key over its monthly token budget gets 429 insufficient_quota; usage counts the refusals as errors', async () => {
    const key = await newKey('--token-budget', '20', '--tenant', 'budgeted');
    expect((await ask(key)).status).toBe(200);
    const over = await ask(key);
    expect(over.status).toBe(429);
    expect(over.body.error.code).toBe('insufficient_quota');
    const usage = await fetch(`${p.url}/proxy/api/v1/usage`, { headers: { 'api-key': key } }).then((r) => r.json() as Promise<any>);
    expect(usage.totals).toMatchObject({ requests: 2, errors: 1 });
    expect(usage.totals.tokens_in).toBeGreaterThan(20);
  });
});
