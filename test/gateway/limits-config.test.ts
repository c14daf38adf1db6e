import { startInTemp, type Started } from '../e2e/shared/server';

/** GRAPHQL_MAX_* reach both the gateway (`platform start`) and a subgraph served alone (`platform serve token`). */
describe.each(['all', 'token'])('GraphQL limits from the environment (%s)', (role) => {
  let server: Started;
  beforeAll(async () => {
    server = await startInTemp(role, {
      GRAPHQL_MAX_ALIASES: '2',
      GRAPHQL_MAX_DEPTH: '2',
      BODY_LIMIT_BYTES: '4096',
      GRAPHQL_MAX_BODY_BYTES: '16384',
    });
  });
  afterAll(() => server?.stop());

  const gql = async (query: string, variables?: Record<string, unknown>) => {
    const res = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    });
    return {
      status: res.status,
      body: (await res.json()) as { data?: unknown; errors?: { message: string; extensions: { code: string } }[] },
    };
  };

  it('refuses past the configured bounds and serves within them', async () => {
    expect((await gql('{ a: realm { id } b: realm { id } }')).body.data).toBeDefined();
    const aliases = await gql('{ a: realm { id } b: realm { id } c: realm { id } }');
    expect(aliases.status).toBe(400);
    expect(aliases.body.errors?.[0]?.extensions.code).toBe('TOO_MANY_ALIASES');
    const deep = await gql('{ introspectToken(token: "x", realm: "y") { realm { name } } }');
    expect(deep.body.errors?.[0]?.extensions.code).toBe('QUERY_TOO_DEEP');
  });

  it('takes /graphql bodies up to GRAPHQL_MAX_BODY_BYTES (413 past it), documents up to BODY_LIMIT_BYTES', async () => {
    const echo = 'query($s: String!) { __type(name: $s) { name } }';
    expect((await gql(echo, { s: 'x'.repeat(10_000) })).body).toEqual({ data: { __type: null } });
    const huge = await gql(echo, { s: 'x'.repeat(20_000) });
    expect(huge.status).toBe(413);
    expect(huge.body.errors?.[0]).toEqual({
      message: 'Request body too large: at most 16384 bytes (GRAPHQL_MAX_BODY_BYTES)',
      extensions: { code: 'PAYLOAD_TOO_LARGE' },
    });
    const long = await gql(`${echo} # ${'x'.repeat(5000)}`);
    expect(long.status).toBe(400);
    expect(long.body.errors?.[0]?.extensions.code).toBe('QUERY_TOO_LARGE');
  });
});
