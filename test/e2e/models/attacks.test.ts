import { startInTemp, type Started } from '../shared/server';

/** The gateway as an outsider would attack it: races, enormous and deeply nested bodies, a hostile GraphQL document. */
describe('model gateway: attacks', () => {
  let p: Started;
  let key: string;
  beforeAll(async () => {
    p = await startInTemp('all');
    key = p.bootstrap!.values.api_key!;
  }, 60_000);
  afterAll(() => p.stop());

  const chat = async (body: string, apiKey = key) => {
    const res = await fetch(`${p.url}/proxy/api/v1/azure/openai/deployments/local-chat/chat/completions?api-version=2024-10-21`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'api-key': apiKey }, body,
    });
    return { status: res.status, cache: res.headers.get('x-cache'), body: (await res.json()) as any };
  };
  const usage = async (apiKey = key) => ((await (await fetch(`${p.url}/proxy/api/v1/usage`, { headers: { 'api-key': apiKey } })).json()) as any).totals;

  it('fifty identical calls at once all answer the same, and every one is in usage', async () => {
    const before = (await usage()).requests as number;
    const body = JSON.stringify({ messages: [{ role: 'system', content: 'Ice melts. Seas rise as ice melts.' }, { role: 'user', content: 'Why do seas rise?' }] });
    const answers = await Promise.all(Array.from({ length: 50 }, () => chat(body)));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(new Set(answers.map((a) => a.body.choices[0].message.content)).size).toBe(1);
    expect(answers.some((a) => a.cache === 'MISS')).toBe(true);
    await new Promise((r) => setTimeout(r, 50));
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

  it('a GraphQL document asking for many chats at once is refused before any model call', async () => {
    const before = (await usage()).requests as number;
    const many = Array.from({ length: 40 }, (_, i) => `c${i}: chat(input: { model: "local-chat", messages: [{ role: USER, content: "hi" }] }) { content }`).join('\n');
    const res = await fetch(`${p.url}/graphql`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'api-key': key }, body: JSON.stringify({ query: `mutation { ${many} }` }),
    });
    const body = (await res.json()) as any;
    expect(body.data ?? null).toBeNull();
    expect(body.errors[0].extensions.code).toEqual(expect.any(String));
    expect((await usage()).requests).toBe(before);
  });
});
