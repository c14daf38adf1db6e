import express, { type Express } from 'express';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { httpClient, type HttpClientOptions } from '../../../clients/shared/http';
import { RateLimited, ValidationFailed } from '../../../core/shared/errors';

/** Serves `app` on 127.0.0.1 for the test and gives a client in front of it. */
async function serve(app: Express, opts: Partial<HttpClientOptions> = {}) {
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = () =>
    new Promise((r) => {
      server.closeAllConnections();
      server.close(r);
    });
  return { client: httpClient({ baseUrl, ...opts }), baseUrl, close, server };
}

const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected a failure');
    },
    (err: unknown) => err,
  );

describe('the REST client helper: requests', () => {
  const calls: Record<string, number> = {};
  const count = (name: string) => (calls[name] = (calls[name] ?? 0) + 1);
  const app = express();
  app.use(express.json(), express.urlencoded({ extended: false }));
  app.all(
    '/echo',
    (req, res) =>
      void res.json({
        method: req.method,
        url: req.originalUrl,
        body: req.body,
        type: req.get('content-type') ?? null,
        authorization: req.get('authorization') ?? null,
        requestId: req.get('x-request-id') ?? null,
        extra: req.get('x-extra') ?? null,
      }),
  );
  app.get('/empty', (_req, res) => void res.status(204).end());
  app.get(
    '/detail',
    (_req, res) =>
      void res.status(400).json({ detail: 'Bad refresh token', error: 'invalid_grant', error_description: 'Bad refresh token' }),
  );
  app.get(
    '/issues',
    (_req, res) => void res.status(422).json({ detail: [{ loc: ['query', 'q'], msg: 'Field required', type: 'missing' }] }),
  );
  app.get('/search-shape', (_req, res) => void res.status(403).json({ status: 'error', message: 'Role search:read required' }));
  app.get('/html', (_req, res) => void res.status(500).type('html').send('<h1>oops</h1>'));
  app.get('/slow-gateway', (_req, res) => void res.status(504).json({ detail: 'Model did not answer' }));
  app.get(
    '/once-429',
    (_req, res) =>
      void (count('once-429') === 1
        ? res.status(429).set('Retry-After', '1').json({ detail: 'Too many requests' })
        : res.json({ ok: true })),
  );
  app.get(
    '/once-503',
    (_req, res) =>
      void (count('once-503') === 1 ? res.status(503).set('Retry-After', '0').json({ detail: 'Warming up' }) : res.json({ ok: true })),
  );
  let leaveAfter429 = () => undefined as unknown;
  app.get('/always-429', (req, res) => {
    count('always-429');
    res
      .status(429)
      .set('Retry-After', `${req.query.after as string}`)
      .json({ detail: 'Slow down', error: 'slow_down' });
    leaveAfter429();
  });
  app.get(
    '/unavailable',
    (req, res) =>
      void (
        count('unavailable'),
        res
          .status(503)
          .set(req.query.after ? { 'Retry-After': `${req.query.after as string}` } : {})
          .json({ detail: 'Down' })
      ),
  );
  app.get('/hang', () => undefined);
  const uploads: string[] = [];
  app.post('/upload-once-503', (req, res) => {
    const parts: Buffer[] = [];
    req
      .on('data', (c: Buffer) => parts.push(c))
      .on('end', () => {
        uploads.push(Buffer.concat(parts).toString('latin1'));
        if (uploads.length === 1) res.status(503).set('Retry-After', '0').json({ detail: 'Warming up' });
        else res.json({ type: req.get('content-type'), bodies: uploads });
      });
  });
  let client: ReturnType<typeof httpClient>;
  let baseUrl: string;
  let close: () => Promise<unknown>;
  let connections = 0;
  beforeAll(async () => {
    const served = await serve(app);
    ({ client, baseUrl, close } = served);
    served.server.on('connection', () => connections++);
  });
  afterAll(() => close());

  it('sends a JSON body and reads the JSON answer', async () => {
    const r = await client.request('POST', '/echo', { json: { q: 'zürich', top_k: [1, 2], nested: { a: null } } });
    expect(r).toMatchObject({ method: 'POST', body: { q: 'zürich', top_k: [1, 2], nested: { a: null } }, type: 'application/json' });
  });

  it('sends a form body, leaving out undefined fields', async () => {
    const r = await client.request('POST', '/echo', { form: { a: '1', b: undefined, c: 'x y' } });
    expect(r).toMatchObject({ body: { a: '1', c: 'x y' }, type: 'application/x-www-form-urlencoded' });
  });

  it('encodes arrays as repeated keys and objects as JSON text in the query', async () => {
    const r = await client.request<{ url: string }>('GET', '/echo', {
      query: { tags: ['a', 'b'], kvp: { k: 'v' }, top_k: 5, skip: undefined },
    });
    expect(new URL(r.url, 'http://x').searchParams.getAll('tags')).toEqual(['a', 'b']);
    expect(r.url).toBe(`/echo?tags=a&tags=b&kvp=${encodeURIComponent('{"k":"v"}')}&top_k=5`);
  });

  it("forwards the caller's bearer token, request id and headers", async () => {
    const r = await client.request('GET', '/echo', { bearer: 'tok-123', requestId: 'req-9', headers: { 'x-extra': 'yes' } });
    expect(r).toMatchObject({ authorization: 'Bearer tok-123', requestId: 'req-9', extra: 'yes' });
  });

  it('reads 204 as undefined', async () => {
    expect(await client.request('GET', '/empty')).toBeUndefined();
  });

  it.each([
    ['{"detail"} with an OAuth code', '/detail', { kind: 'bad_request', message: 'Bad refresh token', code: 'invalid_grant' }],
    ['{"status":"error","message"} (search)', '/search-shape', { kind: 'forbidden', message: 'Role search:read required' }],
    ['a non-JSON 500', '/html', { kind: 'upstream', message: 'upstream answered 500: HTTP 500' }],
    ['504', '/slow-gateway', { kind: 'upstream_timeout', message: 'Model did not answer' }],
  ])('maps %s to the platform error', async (_name, path, expected) => {
    expect(await failure(client.request('GET', path))).toMatchObject(expected);
  });

  it('maps a 422 to ValidationFailed with its issues', async () => {
    const err = await failure(client.request('GET', '/issues'));
    expect(err).toBeInstanceOf(ValidationFailed);
    expect((err as ValidationFailed).issues).toEqual([{ loc: ['query', 'q'], msg: 'Field required', type: 'missing' }]);
  });

  it('waits as Retry-After says on a 429 or 503 and retries', async () => {
    expect(await client.request('GET', '/once-429')).toEqual({ ok: true });
    expect(calls['once-429']).toBe(2);
    expect(await client.request('GET', '/once-503')).toEqual({ ok: true });
    expect(calls['once-503']).toBe(2);
  });

  it('throws RateLimited with the retry delay when Retry-After is beyond the budget', async () => {
    const err = await failure(client.request('GET', '/always-429', { query: { after: 120 } }));
    expect(err).toBeInstanceOf(RateLimited);
    expect(err).toMatchObject({ retryAfterSeconds: 120, code: 'slow_down', message: 'Slow down' });
    expect(calls['always-429']).toBe(1);
    const date = new Date(Date.now() + 3_600_000).toUTCString();
    expect(await failure(client.request('GET', '/always-429', { query: { after: date } }))).toMatchObject({
      kind: 'rate_limited',
      retryAfterSeconds: expect.any(Number),
    });
  });

  it('retries at most `retries` times, then gives up', async () => {
    calls['always-429'] = 0;
    expect(await failure(client.request('GET', '/always-429', { query: { after: 0 } }))).toBeInstanceOf(RateLimited);
    expect(calls['always-429']).toBe(3);
  });

  it('maps a 503 without a usable Retry-After to UpstreamFailed, without retrying', async () => {
    expect(await failure(client.request('GET', '/unavailable'))).toMatchObject({ kind: 'upstream' });
    expect(await failure(client.request('GET', '/unavailable', { query: { after: 60 } }))).toMatchObject({ kind: 'upstream' });
    expect(calls.unavailable).toBe(2);
  });

  it("stops waiting for a retry when the call's signal aborts", async () => {
    calls['always-429'] = 0;
    const caller = new AbortController();
    // The caller leaves once the 429 is out. The answer asks for an hour's wait, which the client
    // takes: only the signal can end it within this test's life (a wait that ignored it times the test out).
    leaveAfter429 = () => setTimeout(() => caller.abort(new Error('caller left')), 100);
    const patient = httpClient({ baseUrl, maxRetryWaitMs: 7_200_000 });
    const err = await failure(patient.request('GET', '/always-429', { query: { after: 3600 }, signal: caller.signal }));
    expect(err).toEqual(new Error('caller left'));
    expect(calls['always-429']).toBe(1);
    leaveAfter429 = () => undefined;
  });

  it('sends a FormData body as multipart, whole again when a 503 is retried', async () => {
    const form = new FormData();
    form.append('file', new Blob([Buffer.from('RIFF-fake-wave')], { type: 'audio/wav' }), 'hello "there".wav');
    form.append('language', 'en');
    const r = await client.request<{ type: string; bodies: string[] }>('POST', '/upload-once-503', { multipart: form });
    expect(r.bodies).toHaveLength(2);
    const unbounded = (body: string) => body.replace(/----formdata-undici-\d+/g, 'BOUNDARY');
    expect(unbounded(r.bodies[1])).toBe(unbounded(r.bodies[0]));
    for (const body of r.bodies) {
      expect(body).toContain('name="file"; filename="hello %22there%22.wav"\r\nContent-Type: audio/wav\r\n\r\nRIFF-fake-wave\r\n');
      expect(body).toContain('name="language"\r\n\r\nen\r\n');
    }
    expect(r.type).toMatch(/^multipart\/form-data; boundary=/);
  });

  it('keeps the connection alive from one call to the next', async () => {
    const before = connections;
    for (let i = 0; i < 3; i++) await client.request('GET', '/echo');
    expect(connections - before).toBeLessThanOrEqual(1);
  });

  it('maps a timeout to UpstreamTimeout and a refused connection to UpstreamFailed', async () => {
    const impatient = httpClient({ baseUrl, timeoutMs: 50 });
    expect(await failure(impatient.request('GET', '/hang'))).toMatchObject({ kind: 'upstream_timeout' });
    const gone = await serve(express());
    await gone.close();
    expect(await failure(gone.client.request('GET', '/'))).toMatchObject({ kind: 'upstream' });
  });
});

describe('the REST client helper: streams', () => {
  const app = express();
  /** Writes the pieces one by one, so frames (and a CRLF) are split across chunks. */
  const raw = (type: string, pieces: string[]) => (_req: express.Request, res: express.Response) => {
    res.type(type).flushHeaders();
    const next = (i: number) => (i < pieces.length ? res.write(pieces[i], () => setImmediate(next, i + 1)) : res.end());
    next(0);
  };
  app.get(
    '/sse',
    raw('text/event-stream', [
      ': a comment, like a heartbeat\n\n',
      'event: delta\ndata: {"text":\n',
      'data: "two lines"}\n\n',
      'data: {"n":2}\r',
      '\n\r\n',
      'id: 7\ndata:{"n":3}\n\n',
      'data: [DONE]\n\n',
      'data: {"after":"done"}\n\n',
    ]),
  );
  app.get('/ndjson', raw('application/x-ndjson', ['{"n":1}\n{"n"', ':2}\n\n', '{"n":3}']));
  app.get('/truncated', raw('text/event-stream', ['data: {"n":1}\n\n']));
  app.get('/not-json', raw('text/event-stream', ['data: nope\n\n']));
  app.get('/plain-json', (_req, res) => void res.json({ n: 1 }));
  app.get('/refused', (_req, res) => void res.status(401).json({ detail: 'Not authenticated' }));
  let left!: Promise<string>;
  app.get('/forever', (_req, res) => {
    res.type('text/event-stream').flushHeaders();
    let n = 0;
    const tick = setInterval(() => res.write(`data: {"n":${n++}}\n\n`), 5);
    left = new Promise((resolve) =>
      res.on('close', () => {
        clearInterval(tick);
        resolve(res.writableFinished ? 'finished' : 'client went away');
      }),
    );
  });
  let client: ReturnType<typeof httpClient>;
  let close: () => Promise<unknown>;
  beforeAll(async () => ({ client, close } = await serve(app)));
  afterAll(() => close());

  const all = async (it: AsyncIterable<unknown>) => {
    const out: unknown[] = [];
    for await (const v of it) out.push(v);
    return out;
  };

  it('reads SSE: multi-line data joined with \\n, comments skipped, CRLF, event names, up to [DONE]', async () => {
    expect(await all(client.stream('GET', '/sse'))).toEqual([{ text: 'two lines' }, { n: 2 }, { n: 3 }]);
    expect(await all(client.events('GET', '/sse'))).toEqual([
      { event: 'delta', data: { text: 'two lines' } },
      { event: 'message', data: { n: 2 } },
      { event: 'message', data: { n: 3 }, id: '7' },
    ]);
  });

  it('reads NDJSON, one object per line, to the end of the body', async () => {
    expect(await all(client.stream('GET', '/ndjson', { headers: { accept: 'application/x-ndjson' } }))).toEqual([
      { n: 1 },
      { n: 2 },
      { n: 3 },
    ]);
  });

  it.each([
    ['an SSE stream cut before [DONE]', '/truncated', /before \[DONE\]/],
    ['an event that is not JSON', '/not-json', /not JSON/],
    ['an answer that is not a stream', '/plain-json', /not a stream/],
  ])('fails with UpstreamFailed on %s', async (_name, path, message) => {
    expect(await failure(all(client.stream('GET', path)))).toMatchObject({ kind: 'upstream', message: expect.stringMatching(message) });
  });

  it('maps an error status before the stream starts', async () => {
    expect(await failure(all(client.stream('GET', '/refused')))).toMatchObject({ kind: 'unauthenticated', message: 'Not authenticated' });
  });

  it('cancels the HTTP body when the caller leaves the loop, so the server sees it go', async () => {
    const seen: unknown[] = [];
    for await (const v of client.stream('GET', '/forever')) {
      seen.push(v);
      if (seen.length === 2) break;
    }
    expect(seen).toEqual([{ n: 0 }, { n: 1 }]);
    await expect(left).resolves.toBe('client went away');
  });

  it("ends a stream with the call's own abort reason when its signal aborts", async () => {
    const caller = new AbortController();
    const reading = (async () => {
      for await (const _ of client.stream('GET', '/forever', { signal: caller.signal })) caller.abort(new Error('caller left'));
    })();
    expect(await failure(reading)).toEqual(new Error('caller left'));
    await expect(left).resolves.toBe('client went away');
  });
});
