import { startInTemp, type Started } from '../e2e/shared/server';

/** GRAPHQL_MAX_* reach both the gateway (`platform start`) and a subgraph served alone (`platform serve token`). */
describe.each(['all', 'token'])('GraphQL limits from the environment (%s)', (role) => {
  let server: Started;
  beforeAll(async () => {
    server = await startInTemp(role, { GRAPHQL_MAX_ALIASES: '2', GRAPHQL_MAX_DEPTH: '2' });
  });
  afterAll(() => server?.stop());

  const gql = async (query: string) => {
    const res = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query }),
    });
    return { status: res.status, body: (await res.json()) as { data?: unknown; errors?: { extensions: { code: string } }[] } };
  };

  it('refuses past the configured bounds and serves within them', async () => {
    expect((await gql('{ a: realm { id } b: realm { id } }')).body.data).toBeDefined();
    const aliases = await gql('{ a: realm { id } b: realm { id } c: realm { id } }');
    expect(aliases.status).toBe(400);
    expect(aliases.body.errors?.[0]?.extensions.code).toBe('TOO_MANY_ALIASES');
    const deep = await gql('{ introspectToken(token: "x", realm: "y") { realm { name } } }');
    expect(deep.body.errors?.[0]?.extensions.code).toBe('QUERY_TOO_DEEP');
  });
});
