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

describe('search service over HTTP: uploads cut midway', () => {
  let f: SearchFixture;
  beforeAll(async () => {
    f = await searchFixture({ SEARCH_MAX_UPLOAD_BYTES: '20000' });
  }, 60_000);
  afterAll(() => f?.stop());

  /** Writes the head of a request and `partial` of a body announced as 100,000 bytes, then leaves once the server has the request. */
  const leaveMidway = async (path: string, contentType: string, partial: string) => {
    const url = new URL(f.url);
    const served = new Promise<ServerResponse>((resolve) => f.platform.server.once('request', (_req, res) => resolve(res)));
    const socket = connect(Number(url.port), url.hostname);
    socket.write(
      `POST ${path} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: ${f.a}\r\n` +
        `Content-Type: ${contentType}\r\nContent-Length: 100000\r\n\r\n${partial}`,
    );
    const res = await served;
    socket.destroy();
    if (!res.writableEnded && !res.destroyed) await new Promise((resolve) => res.once('close', resolve));
  };

  const count = async (auth = f.a) =>
    (await f.call('POST', `${V2}/basic_search?query_string=&page_size=100`, { auth })).body.result_count as number;

  it('a client that leaves in the middle of an upload leaves nothing behind, and the server goes on', async () => {
    const before = await count();
    const boundary = 'xyzzy';
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="half.txt"\r\nContent-Type: text/plain\r\n\r\n`;
    await leaveMidway(`${V2}/objects`, `multipart/form-data; boundary=${boundary}`, `${head}${'half a file '.repeat(100)}`);
    expect(await count()).toBe(before);
    expect((await f.call('POST', `${V2}/objects`, { body: { content: 'still here' } })).status).toBe(201);
    expect(await count()).toBe(before + 1);
  });

  it('the same through the graph: an uploadDocument whose body stops halfway adds nothing, and the graph goes on', async () => {
    const before = await count();
    const half = JSON.stringify({
      query: 'mutation ($input: UploadDocumentInput!) { uploadDocument(input: $input) { id } }',
      variables: { input: { fileName: 'half.txt', contentBase64: Buffer.from('half a file '.repeat(2000)).toString('base64') } },
    }).slice(0, 5000);
    await leaveMidway('/graphql', 'application/json', half);
    expect(await count()).toBe(before);
    const whole = await f.call('POST', '/graphql', {
      body: {
        query: 'mutation ($input: UploadDocumentInput!) { uploadDocument(input: $input) { id } }',
        variables: { input: { fileName: 'whole.txt', contentBase64: Buffer.from('a whole file').toString('base64') } },
      },
    });
    expect(whole.body.data.uploadDocument.id).toEqual(expect.any(String));
    expect(await count()).toBe(before + 1);
  });
});
