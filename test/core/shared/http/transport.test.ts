import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { UpstreamFailed, UpstreamTimeout } from '../../../../core/shared/errors';
import { readText } from '../../../../core/shared/http/body';
import type { RetryPolicy } from '../../../../core/shared/http/retry';
import { httpTransport, type Transport } from '../../../../core/shared/http/transport';

/** The one transport against a real local server: which answers it returns, which it retries, how failures map. */
describe('HTTP transport', () => {
  let server: Server;
  let url: string;
  let transport: Transport;
  let handle: (req: IncomingMessage, res: ServerResponse, n: number) => void;
  let hits = 0;
  const policy: RetryPolicy = { retries: 2, retryStatus: (s) => s === 429 || s >= 500, backoffMs: 5, budgetMs: 1000 };
  const failure = (p: Promise<unknown>) =>
    p.then(
      () => {
        throw new Error('expected a failure');
      },
      (e: unknown) => e as Error & { code?: string },
    );

  beforeAll(async () => {
    server = createServer((req, res) => {
      hits++;
      req.resume().on('end', () => handle(req, res, hits));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    transport = httpTransport({ connectTimeoutMs: 1000, readTimeoutMs: 200 });
  });
  beforeEach(() => void (hits = 0));
  afterAll(async () => {
    await transport.close();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it('returns the first answer it does not retry, whatever its status, its body unread', async () => {
    handle = (_req, res) => void res.writeHead(401, { 'content-type': 'application/json' }).end('{"detail":"Not authenticated"}');
    const res = await transport.send({ url: `${url}/x`, method: 'GET' }, policy, 'Test');
    expect(res.status).toBe(401);
    expect(await readText(res.body, 'Test', undefined)).toBe('{"detail":"Not authenticated"}');
    expect(hits).toBe(1);
  });

  it('retries what the policy names, then hands out the last answer', async () => {
    handle = (_req, res, n) => void res.writeHead(n < 3 ? 503 : 200).end(`attempt ${n}`);
    const ok = await transport.send({ url: `${url}/x`, method: 'POST', body: 'same body' }, policy, 'Test');
    expect([ok.status, await readText(ok.body, 'Test', undefined)]).toEqual([200, 'attempt 3']);
    hits = 0;
    handle = (_req, res, n) => void res.writeHead(500).end(`attempt ${n}`);
    const last = await transport.send({ url: `${url}/x`, method: 'POST' }, policy, 'Test');
    expect([last.status, await readText(last.body, 'Test', undefined)]).toEqual([500, 'attempt 3']);
  });

  it('maps silence to UpstreamTimeout and a refused connection to UpstreamFailed, naming who', async () => {
    handle = () => undefined;
    const slow = await failure(transport.send({ url: `${url}/hang`, method: 'GET' }, policy, 'Test'));
    expect(slow).toBeInstanceOf(UpstreamTimeout);
    expect(slow).toMatchObject({ code: 'upstream_timeout', message: 'Test did not answer in time' });
    expect(hits).toBe(1);

    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const refused = await failure(transport.send({ url: `http://127.0.0.1:${port}/`, method: 'GET' }, policy, 'Nobody'));
    expect(refused).toBeInstanceOf(UpstreamFailed);
    expect(refused).toMatchObject({ code: 'upstream_unavailable', message: 'Nobody is unreachable (ECONNREFUSED)' });
  });

  it("ends with the signal's reason, whether it aborted before or during the exchange", async () => {
    const before = new AbortController();
    before.abort(new Error('gone before'));
    expect(await failure(transport.send({ url: `${url}/x`, method: 'GET', signal: before.signal }, policy, 'Test'))).toEqual(
      new Error('gone before'),
    );
    expect(hits).toBe(0);

    handle = () => undefined;
    const during = new AbortController();
    const pending = failure(transport.send({ url: `${url}/hang`, method: 'GET', signal: during.signal }, policy, 'Test'));
    while (!hits) await new Promise((r) => setImmediate(r));
    during.abort(new Error('gone during'));
    expect(await pending).toEqual(new Error('gone during'));
  });
});
