import express, { type ErrorRequestHandler, type Response } from 'express';
import { request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setImmediate as tick } from 'node:timers/promises';
import request from 'supertest';
import { httpClient } from '../../../clients/shared/http';
import { UpstreamFailed, UpstreamTimeout } from '../../../core/shared/errors';
import { openObjectStream, streamObjects } from '../../../rest/shared/stream';

async function listen(app: express.Express) {
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  return { port: (server.address() as AddressInfo).port, close: () => new Promise((r) => server.close(r)) };
}

/** Reads the first chunk of `path`, then drops the connection. */
const readOnceAndLeave = (port: number, path: string) =>
  new Promise<void>((resolve) => {
    const req = httpRequest({ port, host: '127.0.0.1', path }, (res) =>
      res.once('data', () => {
        req.destroy();
        resolve();
      }),
    );
    req.end();
  });

/** Counts writes that filled the socket, and notes whether the producer ran on before 'drain'. */
function watchDrain(res: Response) {
  const seen = { full: false, pauses: 0, resumedWhileFull: 0 };
  const write = res.write.bind(res) as (...args: unknown[]) => boolean;
  res.write = ((...args: unknown[]) => {
    const ok = write(...args);
    if (!ok) Object.assign(seen, { full: true, pauses: seen.pauses + 1 });
    return ok;
  }) as typeof res.write;
  res.on('drain', () => void (seen.full = false));
  return seen;
}

describe('object streams (SSE, or NDJSON on request)', () => {
  const app = express();
  app.get('/stream', (req, res) => {
    const s = openObjectStream(req, res);
    void s.send({ n: 1 });
    void s.send({ n: 2 });
    s.end();
  });
  async function* failing(err: Error) {
    yield { n: 1 };
    yield { n: 2 };
    throw err;
  }
  const failures: unknown[] = [];
  app.get('/fails', (req, res) =>
    streamObjects(req, res, failing(new Error('at /secret/path.ts:12')), { onError: (e) => failures.push(e) }),
  );
  app.get('/fails-exposed', (req, res) => streamObjects(req, res, failing(new UpstreamFailed('Model provider failed'))));
  app.get('/fails-chat', (req, res) =>
    streamObjects(req, res, failing(new Error('x')), {
      errorEvent: () => ({ response: '', finish_reason: 'error' }),
    }),
  );
  app.get('/fails-first', (req, res) =>
    streamObjects(
      req,
      res,
      // eslint-disable-next-line require-yield -- a producer that fails before its first value
      (async function* () {
        throw new UpstreamTimeout('Model did not answer');
      })(),
    ),
  );
  app.get('/heartbeat', (req, res) => {
    const s = openObjectStream(req, res, { heartbeatMs: 5 });
    const write = res.write.bind(res) as (...args: unknown[]) => boolean;
    res.write = ((chunk: unknown, ...rest: unknown[]) => {
      const ok = write(chunk, ...rest);
      if (String(chunk).startsWith(':')) void s.send({ n: 1 }).then(() => s.end());
      return ok;
    }) as typeof res.write;
  });
  app.use(((err, _req, res, _next) => void res.status(504).json({ detail: err.message })) as ErrorRequestHandler);

  it('frames each object as an SSE event and ends with [DONE]', async () => {
    const res = await request(app).get('/stream');
    expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(res.headers['cache-control']).toContain('no-cache');
    expect(res.text).toBe('data: {"n":1}\n\ndata: {"n":2}\n\ndata: [DONE]\n\n');
  });

  it('writes one JSON object per line for Accept: application/x-ndjson', async () => {
    const res = await request(app).get('/stream').set('accept', 'application/x-ndjson');
    expect(res.headers['content-type']).toMatch(/^application\/x-ndjson/);
    expect(res.text).toBe('{"n":1}\n{"n":2}\n');
  });

  it('keeps an idle SSE stream alive with comment heartbeats', async () => {
    const res = await request(app).get('/heartbeat');
    expect(res.text).toMatch(/^(: ping\n\n)+data: \{"n":1\}\n\ndata: \[DONE\]\n\n$/);
  });

  it('ends a stream whose producer fails midway with a generic error event, never the cause', async () => {
    const res = await request(app).get('/fails');
    expect(res.text).toBe('data: {"n":1}\n\ndata: {"n":2}\n\ndata: {"error":{"message":"Internal server error"}}\n\ndata: [DONE]\n\n');
    expect(failures).toEqual([new Error('at /secret/path.ts:12')]);
  });

  it("shows an exposed platform error's message, in NDJSON too", async () => {
    const res = await request(app).get('/fails-exposed').set('accept', 'application/x-ndjson');
    expect(res.text).toBe('{"n":1}\n{"n":2}\n{"error":{"message":"Model provider failed"}}\n');
  });

  it("writes the caller's own error event (chat: finish_reason error)", async () => {
    const res = await request(app).get('/fails-chat');
    expect(res.text).toContain('data: {"response":"","finish_reason":"error"}\n\ndata: [DONE]\n\n');
  });

  it('answers with an error status when the producer fails before its first object', async () => {
    const res = await request(app).get('/fails-first');
    expect(res.status).toBe(504);
    expect(res.body).toEqual({ detail: 'Model did not answer' });
  });
});

describe('streams and their callers', () => {
  const app = express();
  const state = {
    aborted: undefined as Promise<boolean> | undefined,
    finished: undefined as Promise<boolean> | undefined,
    piped: undefined as Promise<void> | undefined,
    failures: [] as unknown[],
  };
  let drain = { full: false, pauses: 0, resumedWhileFull: 0 };
  app.get('/slow', (req, res) => {
    const s = openObjectStream(req, res);
    void s.send({ first: true });
    state.aborted = new Promise((resolve) => s.signal.addEventListener('abort', () => resolve(true)));
  });
  app.get('/big', (req, res) => {
    drain = watchDrain(res);
    return streamObjects(
      req,
      res,
      (async function* () {
        for (let i = 0; i < 200; i++) {
          if (drain.full) drain.resumedWhileFull++;
          yield { i, pad: 'x'.repeat(64 * 1024) };
        }
      })(),
    );
  });
  app.get('/endless', (req, res) => {
    let done!: (aborted: boolean) => void;
    state.finished = new Promise((resolve) => (done = resolve));
    return streamObjects(req, res, async function* (signal) {
      try {
        for (let n = 0; ; n++) {
          yield { n };
          await tick();
        }
      } finally {
        done(signal.aborted);
      }
    });
  });
  app.get('/waits', (req, res) => {
    state.piped = streamObjects(
      req,
      res,
      async function* (signal) {
        yield { n: 0 };
        // A producer waiting on its upstream (a model) only learns of the caller's leaving by its signal.
        await new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
      },
      { onError: (err) => state.failures.push(err) },
    );
    return state.piped;
  });
  let port: number;
  let close: () => Promise<unknown>;
  beforeAll(async () => ({ port, close } = await listen(app)));
  afterAll(() => close());

  it('aborts its signal when the caller goes away', async () => {
    await readOnceAndLeave(port, '/slow');
    await expect(state.aborted).resolves.toBe(true);
  });

  it('waits for the socket to drain before asking the producer for more, losing nothing', async () => {
    const got: number[] = [];
    for await (const item of httpClient({ baseUrl: `http://127.0.0.1:${port}` }).stream<{ i: number }>('GET', '/big')) {
      got.push(item.i);
      await tick(); // a slow reader
    }
    expect(got).toEqual(Array.from({ length: 200 }, (_, i) => i));
    expect(drain.pauses).toBeGreaterThan(0);
    expect(drain.resumedWhileFull).toBe(0);
  });

  it('stops the producer (return() and its signal) when the caller leaves midway', async () => {
    await readOnceAndLeave(port, '/endless');
    await expect(state.finished).resolves.toBe(true);
  });

  it('aborts the signal of a producer waiting on its upstream, and reports no failure', async () => {
    await readOnceAndLeave(port, '/waits');
    await expect(state.piped).resolves.toBeUndefined();
    expect(state.failures).toEqual([]);
  });
});
