import request from 'supertest';
import { modelsInProcess, type ModelsInProcess } from './fixture';

/** A key's request rate and monthly token budget, enforced on every route and visible in usage: the REST face in process. */
describe('model gateway: key limits', () => {
  let p: ModelsInProcess;
  beforeAll(async () => {
    p = await modelsInProcess();
  });
  afterAll(() => p?.close());

  const newKey = async (...flags: string[]) => {
    const made = await p.cli('key', 'create', '--name', 'limited', ...flags);
    expect(made).toMatchObject({ api_key: expect.stringMatching(/^lmk-/), revoked_at: null });
    return made.api_key as string;
  };
  const ask = async (key: string) => {
    const res = await request(p.app)
      .post('/proxy/api/v1/azure/openai/deployments/local-chat/chat/completions?api-version=2024-10-21-preview')
      .set('api-key', key)
      .send({
        messages: [
          { role: 'system', content: 'Ice melts in the sun. Sea levels rise.' },
          { role: 'user', content: 'Why do sea levels rise?' },
        ],
      });
    return { status: res.status, retryAfter: res.headers['retry-after'] as string | undefined, body: res.body };
  };

  it('a key limited to 2 requests a minute gets 429 with Retry-After on the third, in the route format', async () => {
    const key = await newKey('--rpm', '2');
    const statuses = await Promise.all([1, 2, 3, 4].map(() => ask(key)));
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
    const usage = (await request(p.app).get('/proxy/api/v1/usage').set('api-key', key)).body;
    expect(usage.totals).toMatchObject({ requests: 2, errors: 1 });
    expect(usage.totals.tokens_in).toBeGreaterThan(20);
  });
});
