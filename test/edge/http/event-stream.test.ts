import express from 'express';
import request from 'supertest';
import { UpstreamFailed } from '../../../core/shared/errors';
import { openStream, pipeStream } from '../../../edge/http/event-stream';
import { jsonArray, multipartFraming, ndjsonLine, SSE_HEAD, sseComment, sseEvent } from '../../../edge/http/stream-frames';

describe('stream framings', () => {
  it('frames server-sent events with or without names, LF or CRLF, and comments', () => {
    expect(sseEvent('{"n":1}')).toBe('data: {"n":1}\n\n');
    expect(sseEvent('{"type":"ping"}', 'ping')).toBe('event: ping\ndata: {"type":"ping"}\n\n');
    expect(sseEvent(undefined, 'complete')).toBe('event: complete\ndata:\n\n');
    expect(sseEvent('{}', undefined, '\r\n')).toBe('data: {}\r\n\r\n');
    expect(sseComment()).toBe(':\n\n');
    expect(sseComment('ping')).toBe(': ping\n\n');
    expect(ndjsonLine('{}')).toBe('{}\n');
  });

  it('writes a JSON array element by element, and an empty one', () => {
    const a = jsonArray();
    expect([a.element('1'), a.element('2'), a.close()].join('')).toBe('[1,\r\n2]');
    expect(jsonArray().close()).toBe('[]');
  });

  it('frames multipart parts and the closing boundary', () => {
    const m = multipartFraming('graphql', ';subscriptionSpec="1.0"');
    expect(m.head['Content-Type']).toBe('multipart/mixed;boundary="graphql";subscriptionSpec="1.0"');
    expect(m.part('{}')).toBe('\r\n--graphql\r\ncontent-type: application/json; charset=utf-8\r\n\r\n{}');
    expect(m.end).toBe('\r\n--graphql--\r\n');
  });
});

describe('the stream writer', () => {
  const app = express();
  async function* failsAfter(n: number) {
    for (let i = 0; i < n; i++) yield i;
    throw new UpstreamFailed('upstream broke');
  }
  const opts = {
    headers: SSE_HEAD,
    frame: (i: number) => sseEvent(String(i)),
    failure: (e: unknown) => sseEvent(JSON.stringify((e as Error).message), 'error'),
  };
  app.get('/opening', (_req, res) => {
    const s = openStream(res, { headers: SSE_HEAD, opening: sseComment() });
    void s.write(sseEvent('1')).then(() => s.end(sseEvent('[DONE]')));
  });
  app.get('/midway', (_req, res) => pipeStream(res, failsAfter(2), { ...opts, last: () => sseEvent('[DONE]') }));
  app.get('/first', (_req, res, next) => pipeStream(res, failsAfter(0), opts).catch(next));
  app.get('/once', (_req, res) => pipeStream(res, failsAfter(0), { ...opts, head: 'once' }));
  app.use(((err, _req, res, _next) => void res.status(502).json({ detail: err.message })) as express.ErrorRequestHandler);

  it('writes its head, an opening, its frames and a last frame', async () => {
    const res = await request(app).get('/opening');
    expect(res.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(res.headers['x-accel-buffering']).toBe('no');
    expect(res.text).toBe(':\n\ndata: 1\n\ndata: [DONE]\n\n');
  });

  it("ends a failure midway with the wire's error frame, then its last frame", async () => {
    expect((await request(app).get('/midway')).text).toBe('data: 0\n\ndata: 1\n\nevent: error\ndata: "upstream broke"\n\ndata: [DONE]\n\n');
  });

  it('throws a failure before the first item (a status), unless the head went at once', async () => {
    const first = await request(app).get('/first');
    expect(first.status).toBe(502);
    expect(first.body).toEqual({ detail: 'upstream broke' });
    const once = await request(app).get('/once');
    expect(once.status).toBe(200);
    expect(once.text).toBe('event: error\ndata: "upstream broke"\n\n');
  });
});
