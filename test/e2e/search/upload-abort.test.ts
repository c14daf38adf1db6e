import type { ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { searchFixture, type SearchFixture } from './fixture';

/**
 * A client that leaves in the middle of an upload (the one objects case that stays here; the others
 * run in process in test/rest/search/objects.test.ts).
 *
 * Started platform: what is tested is the server's side of a connection cut midway (the request
 * stream ending under the multipart parser, the server going on), so the request is written as raw
 * HTTP on a socket the test destroys, to the server `platform start` builds.
 */
const V2 = '/cl/search/api/v2';

describe('search service over HTTP: objects', () => {
  let f: SearchFixture;
  beforeAll(async () => {
    f = await searchFixture({ SEARCH_MAX_UPLOAD_BYTES: '20000' });
  }, 60_000);
  afterAll(() => f?.stop());

  const count = async (auth = f.a) =>
    (await f.call('POST', `${V2}/basic_search?query_string=&page_size=100`, { auth })).body.result_count as number;

  it('a client that leaves in the middle of an upload leaves nothing behind, and the server goes on', async () => {
    const before = await count();
    const url = new URL(f.url);
    const boundary = 'xyzzy';
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="half.txt"\r\nContent-Type: text/plain\r\n\r\n`;
    // The server's side of this request: it has the head, then its answer ends (the connection gone).
    const served = new Promise<ServerResponse>((resolve) => f.platform.server.once('request', (_req, res) => resolve(res)));
    const socket = connect(Number(url.port), url.hostname);
    socket.write(
      `POST ${V2}/objects HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: ${f.a}\r\n` +
        `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: 100000\r\n\r\n${head}${'half a file '.repeat(100)}`,
    );
    const res = await served;
    socket.destroy();
    if (!res.writableEnded && !res.destroyed) await new Promise((resolve) => res.once('close', resolve));
    expect(await count()).toBe(before);
    expect((await f.call('POST', `${V2}/objects`, { body: { content: 'still here' } })).status).toBe(201);
    expect(await count()).toBe(before + 1);
  });
});
