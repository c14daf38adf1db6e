import { describeReplicas, startReplicas, type ReplicaSet } from '../../shared/replicas';

/**
 * graphql-sse's single connection mode across replicas behind a load balancer (three `platform start`
 * processes on one PostgreSQL and one Redis): the reservation on one replica, the stream on a
 * second, the operations on a third meet through Redis; another caller's requests find nothing, the
 * bound on streams per caller is counted across replicas, and when the replica holding a stream
 * dies the stream is gone for the others at once (nobody listens on its channel any more).
 */
jest.setTimeout(120_000);

const TOKEN = 'x-graphql-event-stream-token';
const ANSWER = 'subscription { answerStream(input: { query: "Why do glaciers retreat?" }) { response finishReason } }';

describeReplicas('the single connection mode across three replicas', () => {
  let set: ReplicaSet;
  let user: Record<string, string>;
  let client: Record<string, string>;
  const graphql = (i: number) => `${set.replicas[i].url}/graphql`;

  beforeAll(async () => {
    // A loaded machine (CI runs suites side by side) must not turn a slow Redis reply into a 503 here.
    set = await startReplicas({ count: 3, env: { REDIS_COMMAND_TIMEOUT_MS: '5000' } });
    const creds = set.credentials();
    const token = async (path: string, form: Record<string, string>) => {
      const res = await fetch(`${set.replicas[0].url}/auth/api/v1/oauth/connect/${path}`, {
        method: 'POST',
        body: new URLSearchParams(form),
      });
      return `Bearer ${((await res.json()) as { access_token: string }).access_token}`;
    };
    user = {
      authorization: await token('user/login', { realm: creds.realm, username: creds.username, password: creds.password }),
      'api-key': creds.api_key,
    };
    client = {
      authorization: await token('token', { realm: creds.realm, client_id: creds.client_id, client_secret: creds.client_secret }),
    };
  }, 180_000);
  afterAll(() => set?.stop());

  const reserve = async (i: number, who = user) => {
    const res = await fetch(graphql(i), { method: 'PUT', headers: { authorization: who.authorization } });
    return { status: res.status, token: await res.text() };
  };
  const operate = async (i: number, streamToken: string, operationId: string, query: string, who = user) => {
    const res = await fetch(graphql(i), {
      method: 'POST',
      headers: { ...who, [TOKEN]: streamToken, 'content-type': 'application/json' },
      body: JSON.stringify({ query, extensions: { operationId } }),
    });
    const body = await res.text();
    return {
      status: res.status,
      code: body ? (JSON.parse(body) as { errors?: { extensions?: { code?: string } }[] }).errors?.[0]?.extensions?.code : undefined,
    };
  };
  /** Opens the stream on replica `i`; `until(text)` reads it until the needle shows. */
  const open = async (i: number, streamToken: string) => {
    const leave = new AbortController();
    const res = await fetch(graphql(i), {
      headers: { authorization: user.authorization, [TOKEN]: streamToken, accept: 'text/event-stream' },
      signal: leave.signal,
    });
    const reader = res.body!.getReader();
    let text = '';
    return {
      status: res.status,
      async until(needle: string) {
        while (!text.includes(needle)) {
          const { value, done } = await reader.read();
          if (done) throw new Error(`the stream ended without ${needle}:\n${text}`);
          text += new TextDecoder().decode(value);
        }
        return text;
      },
      /** Resolves once the server ends the stream. */
      async ended() {
        for (;;) if ((await reader.read().catch(() => ({ done: true }))).done) return;
      },
      leave: () => leave.abort(),
    };
  };

  it('a reservation on one replica, its stream on a second, its operations on a third: a query and a streamed answer', async () => {
    const made = await reserve(0);
    expect(made.status).toBe(201);
    const early = await operate(2, made.token, 'early', '{ __typename }');
    expect(early).toEqual({ status: 202, code: undefined });
    expect(await operate(0, made.token, 'early', '{ __typename }')).toEqual({ status: 409, code: 'OPERATION_ID_TAKEN' });
    const stream = await open(1, made.token);
    expect(stream.status).toBe(200);
    await stream.until('event: complete\ndata: {"id":"early"}');
    expect(await operate(2, made.token, 's1', ANSWER)).toEqual({ status: 202, code: undefined });
    const text = await stream.until('event: complete\ndata: {"id":"s1"}');
    expect(text).toMatch(/"id":"s1","payload":\{"data":\{"answerStream":\{"response":"[^"]+","finishReason":null/);
    expect(text).toContain('"id":"s1","payload":{"data":{"answerStream":{"response":"","finishReason":"STOP"}}}');
    expect(
      (
        await fetch(`${graphql(0)}?operationId=s1`, {
          method: 'DELETE',
          headers: { authorization: user.authorization, [TOKEN]: made.token },
        })
      ).status,
    ).toBe(200);
    // Another caller's requests find nothing, on any replica; the stream opens once.
    expect(await operate(0, made.token, 'x', '{ __typename }', client)).toEqual({ status: 404, code: 'STREAM_NOT_FOUND' });
    expect((await open(2, made.token)).status).toBe(409);
    stream.leave();
  });

  it('counts the streams one caller holds across replicas (10)', async () => {
    const got: number[] = [];
    for (let i = 0; i < 11; i++) got.push((await reserve(i % 3, client)).status);
    expect(got).toEqual([...Array(10).fill(201), 429]);
  });

  it('when the replica holding a stream dies, the others find it gone', async () => {
    const made = await reserve(0);
    const stream = await open(2, made.token);
    await set.kill(2);
    await stream.ended();
    expect(await operate(1, made.token, 'late', '{ __typename }')).toEqual({ status: 404, code: 'STREAM_NOT_FOUND' });
  });
});
