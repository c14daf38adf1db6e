import { startInTemp, type Started } from '../shared/server';

/**
 * The gateway as an outsider would attack it through the platform's /graphql: a hostile GraphQL
 * document, refused by the federation gateway's limits before any model call. Races and enormous or
 * deeply nested REST bodies are tested in process in test/rest/models/attacks.test.ts.
 */
describe('model gateway: attacks', () => {
  let p: Started;
  let key: string;
  beforeAll(async () => {
    p = await startInTemp('all');
    key = p.bootstrap!.values.api_key!;
  }, 60_000);
  afterAll(() => p.stop());

  const usage = async (apiKey = key) =>
    ((await (await fetch(`${p.url}/proxy/api/v1/usage`, { headers: { 'api-key': apiKey } })).json()) as any).totals;

  it('a GraphQL document asking for many chats at once is refused before any model call', async () => {
    const before = (await usage()).requests as number;
    const many = Array.from(
      { length: 40 },
      (_, i) => `c${i}: chat(input: { model: "local-chat", messages: [{ role: USER, content: "hi" }] }) { content }`,
    ).join('\n');
    const res = await fetch(`${p.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'api-key': key },
      body: JSON.stringify({ query: `mutation { ${many} }` }),
    });
    const body = (await res.json()) as any;
    expect(body.data ?? null).toBeNull();
    expect(body.errors[0].extensions.code).toEqual(expect.any(String));
    expect((await usage()).requests).toBe(before);
  });
});
