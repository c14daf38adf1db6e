import { createClient, type Client } from 'graphql-ws';
import { WebSocket } from 'ws';
import { searchFixture, type SearchFixture } from '../e2e/search/fixture';

/**
 * graphql-ws at the gateway's /graphql refuses what an attacker sends before it costs anything:
 * a connection_init whose token is present but not valid (4403, as graphql-ws's own onConnect
 * returning false), a connection_init over 16 KiB or any message over the body limit (1009, from
 * the frame's header), one nesting deeper than 128 levels (4400, before it is parsed), and more
 * open sockets than GRAPHQL_WS_MAX_SOCKETS_PER_ADDRESS from one address (429 before the upgrade;
 * the address as TRUST_PROXY resolves it). An absent token is let in. None of it is logged as an
 * internal error. And the newest graphql-ws client (6.4.2) takes each refusal as it should.
 */
let f: SearchFixture;
const MAX_SOCKETS = 3;
beforeAll(async () => {
  f = await searchFixture({ GRAPHQL_WS_MAX_SOCKETS_PER_ADDRESS: String(MAX_SOCKETS), TRUST_PROXY: 'loopback' });
}, 60_000);
afterAll(() => f?.stop());

const wsUrl = () => `${f.url.replace(/^http/, 'ws')}/graphql`;

interface Closed {
  code: number;
  reason: string;
  /** The messages the server sent before closing. */
  got: string[];
}

/** Opens a socket (from `from`, with `headers`), sends the first frame once open and the others once acknowledged (as the protocol asks); resolves when the server closes it. */
const exchange = (frames: (string | Buffer)[], opts: { from?: string; headers?: Record<string, string> } = {}) =>
  new Promise<Closed>((resolve, reject) => {
    const ws = new WebSocket(wsUrl(), 'graphql-transport-ws', { localAddress: opts.from, headers: opts.headers });
    const got: string[] = [];
    ws.on('error', reject);
    ws.on('open', () => ws.send(frames[0]));
    ws.on('message', (m) => {
      got.push(String(m));
      const type = JSON.parse(String(m)).type;
      if (type === 'complete') ws.close(1000);
      if (type !== 'connection_ack') return;
      if (frames.length === 1) ws.close(1000);
      else frames.slice(1).forEach((frame) => ws.send(frame));
    });
    ws.on('close', (code, reason) => resolve({ code, reason: String(reason), got }));
  });

const init = (payload?: unknown) => JSON.stringify({ type: 'connection_init', ...(payload === undefined ? {} : { payload }) });
const ACK = JSON.stringify({ type: 'connection_ack' });

/** JSON nesting `depth` arrays deep. */
const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

describe('connection_init credentials', () => {
  it('a garbage, malformed or non-string token closes the socket with 4403 and the reason; no token, or a valid one, is acknowledged', async () => {
    for (const payload of [
      { Authorization: 'Bearer garbage' },
      { authorization: 'Basic dXNlcjpwYXNz' },
      { authorization: 42 },
      { AUTHORIZATION: `${f.a}x` },
    ]) {
      const closed = await exchange([init(payload)]);
      expect([closed.code, closed.got]).toEqual([4403, []]);
      expect(closed.reason).toMatch(/^Forbidden: Invalid token/);
    }
    // A garbage token in the upgrade request's own header is refused the same way.
    expect((await exchange([init()], { headers: { authorization: 'Bearer garbage' } })).code).toBe(4403);
    expect(await exchange([init()])).toEqual({ code: 1000, reason: '', got: [ACK] });
    expect(await exchange([init({ authorization: '' })])).toEqual({ code: 1000, reason: '', got: [ACK] });
    expect(await exchange([init({ authorization: f.a })])).toEqual({ code: 1000, reason: '', got: [ACK] });
  });

  it('without a token the socket is open, and an operation that needs a caller is refused by its subgraph', async () => {
    const sub = JSON.stringify({ id: '1', type: 'subscribe', payload: { query: '{ viewer { username } }' } });
    const ws = new WebSocket(wsUrl(), 'graphql-transport-ws');
    const answer = await new Promise<any>((resolve, reject) => {
      ws.on('error', reject);
      ws.on('open', () => ws.send(init()));
      ws.on('message', (m) => {
        const msg = JSON.parse(String(m));
        if (msg.type === 'connection_ack') ws.send(sub);
        if (msg.type === 'next') resolve(msg.payload);
      });
    });
    ws.close();
    expect(answer.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });
});

describe('message bounds', () => {
  it('refuses a 900 KB connection_init (1009) and a 5,000-deep one (4400) before parsing them, logging no internal error', async () => {
    const errors = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      const big = await exchange([init({ authorization: 'Bearer garbage', pad: 'x'.repeat(900_000) })]);
      expect([big.code, big.got]).toEqual([1009, []]);
      const deep = await exchange([`{"type":"connection_init","payload":{"authorization":"Bearer garbage","x":${nested(5000)}}}`]);
      expect([deep.code, deep.got]).toEqual([4400, []]);
      expect(deep.reason).toMatch(/deeper than 128 levels/);
      // Within the bound, the same depth limit as an HTTP body's: 100 levels pass.
      expect((await exchange([`{"type":"connection_init","payload":{"x":${nested(100)}}}`])).got).toEqual([ACK]);
      expect(errors.mock.calls.map((c) => String(c[0]))).toEqual([]);
    } finally {
      errors.mockRestore();
    }
  });

  it('after the acknowledgement a message may hold the body limit (1 MiB), not more; a deep operation is refused alone, the socket kept', async () => {
    const op = (pad: number, id = '1') =>
      JSON.stringify({ id, type: 'subscribe', payload: { query: '{ __typename }', extensions: { pad: 'x'.repeat(pad) } } });
    const within = await exchange([init(), op(600_000)]);
    expect(within.got.map((m) => JSON.parse(m).type)).toEqual(['connection_ack', 'next', 'complete']);
    const over = await exchange([init(), op(1_100_000)]);
    expect([over.code, over.got]).toEqual([1009, [ACK]]);
    const deep = await exchange([
      init(),
      `{"id":"1","type":"subscribe","payload":{"query":"{ __typename }","variables":{"v":${nested(1000)}}}}`,
      op(10, '2'),
    ]);
    expect(deep.code).toBe(1000);
    expect(deep.got.map((m) => JSON.parse(m))).toEqual([
      { type: 'connection_ack' },
      { id: '1', type: 'error', payload: [expect.objectContaining({ extensions: expect.objectContaining({ reason: 'json_too_deep' }) })] },
      { id: '2', type: 'next', payload: { data: { __typename: 'Query' } } },
      { id: '2', type: 'complete' },
    ]);
  });
});

describe('open sockets per client address', () => {
  /** An open, acknowledged socket from `from`; resolves with it, or rejects with the HTTP status of a refused upgrade. */
  const open = (from: string, headers: Record<string, string> = {}) =>
    new Promise<WebSocket>((resolve, reject) => {
      const ws = new WebSocket(wsUrl(), 'graphql-transport-ws', { localAddress: from, headers });
      ws.on('unexpected-response', (_req, res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += String(d)));
        res.on('end', () =>
          reject(
            Object.assign(new Error(`HTTP ${res.statusCode}`), {
              status: res.statusCode,
              retryAfter: res.headers['retry-after'],
              body: JSON.parse(body),
            }),
          ),
        );
      });
      ws.on('error', reject);
      ws.on('open', () => ws.send(init()));
      ws.on('message', () => resolve(ws));
    });
  const closing = (ws: WebSocket) =>
    new Promise<void>((resolve) => {
      ws.once('close', () => resolve());
      ws.close();
    });

  it(`caps each address at ${MAX_SOCKETS} open sockets (429 before the upgrade), each address on its own`, async () => {
    const two = await Promise.all(Array.from({ length: MAX_SOCKETS }, () => open('127.0.0.2')));
    await expect(open('127.0.0.2')).rejects.toMatchObject({
      status: 429,
      retryAfter: '5',
      body: { errors: [{ extensions: { code: 'TOO_MANY_SOCKETS' } }] },
    });
    // Other addresses are not held back by 127.0.0.2.
    const three = await Promise.all(Array.from({ length: MAX_SOCKETS }, () => open('127.0.0.3')));
    const four = await open('127.0.0.4');
    await expect(open('127.0.0.3')).rejects.toMatchObject({ status: 429 });
    // A socket closed gives its place back.
    await closing(two[0]);
    const again = await open('127.0.0.2');
    await Promise.all([...two.slice(1), ...three, four, again].map(closing));
  });

  it("counts the address TRUST_PROXY resolves: behind a trusted proxy (loopback here), X-Forwarded-For's", async () => {
    const viaProxy = await Promise.all(Array.from({ length: MAX_SOCKETS }, () => open('127.0.0.5', { 'x-forwarded-for': '203.0.113.7' })));
    await expect(open('127.0.0.5', { 'x-forwarded-for': '203.0.113.7' })).rejects.toMatchObject({ status: 429 });
    // The proxy's other clients still get in.
    const other = await open('127.0.0.5', { 'x-forwarded-for': '203.0.113.8' });
    await Promise.all([...viaProxy, other].map(closing));
  });
});

describe('the graphql-ws client (6.4.2) against the refusals', () => {
  /** Subscribes once with `params`; resolves with the close event the client reports and how many sockets it opened. */
  const attempt = (params: Record<string, unknown>, retryAttempts: number) =>
    new Promise<{ code: number; sockets: number }>((resolve) => {
      let sockets = 0;
      const client: Client = createClient({
        url: wsUrl(),
        webSocketImpl: WebSocket,
        connectionParams: params,
        retryAttempts,
        retryWait: async () => undefined,
        on: { opened: () => void sockets++ },
      });
      client.subscribe(
        { query: '{ __typename }' },
        {
          next: () => undefined,
          complete: () => undefined,
          error: (e) => {
            void client.dispose();
            resolve({ code: (e as { code: number }).code, sockets });
          },
        },
      );
    });

  it('over the cap, its connection is refused (429) and it reports the failure at once, without retrying', async () => {
    const from = '127.0.0.9';
    const held = await Promise.all(
      Array.from(
        { length: MAX_SOCKETS },
        () =>
          new Promise<WebSocket>((resolve, reject) => {
            const ws = new WebSocket(wsUrl(), 'graphql-transport-ws', { localAddress: from });
            ws.on('error', reject);
            ws.on('open', () => resolve(ws));
          }),
      ),
    );
    /** ws's WebSocket, opening its sockets from `from`. */
    class FromAddress extends WebSocket {
      constructor(address: string, protocols?: string | string[]) {
        super(address, protocols, { localAddress: from });
      }
    }
    let attempts = 0;
    const client = createClient({
      url: wsUrl(),
      webSocketImpl: FromAddress,
      retryAttempts: 2,
      retryWait: async () => undefined,
      on: { connecting: () => void attempts++ },
    });
    const failure = await new Promise<unknown>((resolve) => {
      client.subscribe({ query: '{ __typename }' }, { next: () => undefined, complete: () => resolve(undefined), error: resolve });
    });
    await client.dispose();
    // An error event, not a close: graphql-ws's client retries only closes, so it reports it at once.
    expect((failure as { message?: string }).message).toBe('Unexpected server response: 429');
    expect(attempts).toBe(1);
    held.forEach((ws) => ws.terminate());
  });

  it('reports 4403 after its retryAttempts (it retries a Forbidden, since new parameters may pass), and 1009 at once', async () => {
    expect(await attempt({ authorization: 'Bearer garbage' }, 2)).toEqual({ code: 4403, sockets: 3 });
    expect(await attempt({ authorization: 'Bearer garbage' }, 0)).toEqual({ code: 4403, sockets: 1 });
    expect(await attempt({ pad: 'x'.repeat(20_000) }, 5)).toEqual({ code: 1009, sockets: 1 });
  });
});
