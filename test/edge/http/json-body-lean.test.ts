import { once } from 'node:events';
import { connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express, { type NextFunction, type Request, type Response } from 'express';
import { jsonBody } from '../../../edge/http/json-body';
import { fromBodyParser } from '../../../edge/http/errors';

/**
 * The JSON body parser's lean reader (issue 36): a small `application/json` body with a
 * Content-Length is read without body-parser's machinery, and must read exactly as body-parser
 * does: the same bodies, the same refusals (too deep, malformed, a client that leaves midway),
 * while bodies it does not take (compressed, chunked, over the limit) still go to body-parser.
 */
describe('the JSON body parser over HTTP', () => {
  let server: Server;
  let url: string;
  const seen: { type?: string; status?: number }[] = [];

  beforeAll(async () => {
    const app = express();
    app.post('/echo', jsonBody({ limit: 2000, strict: true }), (req: Request, res: Response) => res.json({ body: req.body }));
    app.use((err: { type?: string; status?: number }, _req: Request, res: Response, _next: NextFunction) => {
      seen.push({ type: err.type, status: err.status });
      const mapped = fromBodyParser(err);
      res.status(mapped ? 400 + (mapped.kind === 'payload_too_large' ? 13 : 0) : 500).json({ type: err.type, message: mapped?.message });
    });
    server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/echo`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const post = async (body: string | Buffer, headers: Record<string, string> = {}) => {
    const res = await fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
    return { status: res.status, json: (await res.json()) as Record<string, unknown> };
  };

  it('reads plain JSON, with or without a UTF-8 charset, as body-parser does', async () => {
    const text = JSON.stringify({ query: '{ realm { id } }', variables: { s: 'é ✓' } });
    for (const type of ['application/json', 'application/json; charset=utf-8', 'Application/JSON;charset="UTF-8"'])
      expect(await post(text, { 'content-type': type })).toEqual({ status: 200, json: { body: JSON.parse(text) } });
    // Compressed and chunked bodies are body-parser's; they read the same.
    expect(await post(gzipSync(text), { 'content-encoding': 'gzip' })).toEqual({ status: 200, json: { body: JSON.parse(text) } });
    const chunked = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: new Blob([text]).stream(),
      duplex: 'half',
    });
    expect(await chunked.json()).toEqual({ body: JSON.parse(text) });
    // An empty body is {}; a byte order mark is skipped.
    expect(await post('')).toEqual({ status: 200, json: { body: {} } });
    expect((await post(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"a":1}')]))).json).toEqual({ body: { a: 1 } });
  });

  it('refuses as body-parser does: malformed, too deep, too large', async () => {
    expect(await post('{"a":')).toMatchObject({ status: 400, json: { type: 'entity.parse.failed', message: 'Malformed JSON body' } });
    expect(await post('[1]'.padStart(3, ' '))).toEqual({ status: 200, json: { body: [1] } });
    expect(await post('"a string"')).toMatchObject({ status: 400, json: { type: 'entity.parse.failed' } });
    const deep = `${'['.repeat(300)}${']'.repeat(300)}`;
    expect(await post(deep)).toMatchObject({ status: 400, json: { type: 'entity.too.deep' } });
    expect(seen.at(-1)).toEqual({ type: 'entity.too.deep', status: 403 });
    expect(await post(JSON.stringify({ a: 'x'.repeat(3000) }))).toMatchObject({ status: 413, json: { type: 'entity.too.large' } });
  });

  it('answers the next caller when one leaves midway through its body', async () => {
    const before = seen.length;
    const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
    await once(socket, 'connect');
    socket.write('POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"query":');
    // The server has the headers and part of the body; the client goes.
    for (let i = 0; i < 50 && seen.length === before; i++) {
      if (i === 5) socket.destroy();
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(seen.slice(before)).toEqual([{ type: 'request.aborted', status: 400 }]);
    expect(await post('{"after":true}')).toEqual({ status: 200, json: { body: { after: true } } });
  });
});
