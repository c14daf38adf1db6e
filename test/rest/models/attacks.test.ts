import request from 'supertest';
import { modelsInProcess, type ModelsInProcess } from './fixture';
import { eventually } from '../../shared/wait';

/**
 * The REST face as an outsider would attack it, in process: races, enormous and deeply nested
 * bodies. A hostile GraphQL document goes through the gateway: test/e2e/models/attacks.test.ts.
 */
describe('model gateway: attacks', () => {
  let p: ModelsInProcess;
  let key: string;
  beforeAll(async () => {
    p = await modelsInProcess();
    key = p.key;
  });
  afterAll(() => p?.close());

  const chat = async (body: string, apiKey = key) => {
    const res = await request(p.app)
      .post('/proxy/api/v1/azure/openai/deployments/local-chat/chat/completions?api-version=2024-10-21')
      .set({ 'content-type': 'application/json', 'api-key': apiKey })
      .send(body);
    return { status: res.status, cache: res.headers['x-cache'] as string | undefined, body: res.body };
  };
  const usage = async (apiKey = key) => (await request(p.app).get('/proxy/api/v1/usage').set('api-key', apiKey)).body.totals;

  it('fifty identical calls at once all answer the same, and every one is in usage', async () => {
    const before = (await usage()).requests as number;
    const body = JSON.stringify({
      messages: [
        { role: 'system', content: 'Ice melts. Seas rise as ice melts.' },
        { role: 'user', content: 'Why do seas rise?' },
      ],
    });
    const answers = await Promise.all(Array.from({ length: 50 }, () => chat(body)));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(new Set(answers.map((a) => a.body.choices[0].message.content)).size).toBe(1);
    expect(answers.some((a) => a.cache === 'MISS')).toBe(true);
    // Usage rows are written as each call ends: all fifty, and no more.
    await eventually(async () => (await usage()).requests >= before + 50);
    expect((await usage()).requests).toBe(before + 50);
  });

  it('an enormous body is 413 and a deeply nested one 400, in the Azure format, and the server goes on', async () => {
    const huge = await chat(JSON.stringify({ messages: [{ role: 'user', content: 'x'.repeat(3 * 1024 * 1024) }] }));
    expect(huge.status).toBe(413);
    expect(huge.body.error).toEqual(expect.objectContaining({ message: expect.any(String) }));
    const deep = await chat(`{"messages":[{"role":"user","content":${'['.repeat(5000)}${']'.repeat(5000)}}]}`);
    expect(deep.status).toBe(400);
    expect(deep.body.error.type).toBe('invalid_request_error');
    const long = await chat(JSON.stringify({ messages: [{ role: 'user', content: 'word '.repeat(20_000) }] }));
    expect(long).toMatchObject({ status: 400, body: { error: { code: 'context_length_exceeded' } } });
    expect((await chat(JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] }))).status).toBe(200);
  });
});
