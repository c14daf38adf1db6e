import { searchInProcess, type SearchInProcess } from './fixture';

/**
 * `GET /cl/search/api/v2/objects/{object_id}/passages`: one object's passages in order, a page at
 * a time (what the REST client serves `Document.passages` with in remote mode), seen as getObject
 * sees the object. In process, with supertest.
 */
const V2 = '/cl/search/api/v2';
const text = (n: number) => Array.from({ length: n }, (_, i) => `Line ${i} says that puffins nest in burrows on cliffs.`).join(' ');

describe('search service over HTTP: an object passages', () => {
  let f: SearchInProcess;
  let id: string;
  let chunks: number;
  beforeAll(async () => {
    f = await searchInProcess();
    id = (await f.call('POST', `${V2}/objects`, { body: { content: text(90), title: 'Puffins' } })).body.object_id;
    chunks = (await f.call('GET', `${V2}/objects/${id}/passages`)).body.result_count;
  }, 60_000);
  afterAll(() => f?.stop());

  const page = (query = '', opts: { auth?: string; of?: string } = {}) =>
    f.call('GET', `${V2}/objects/${opts.of ?? id}/passages${query}`, { auth: opts.auth });

  it('pages through the passages in order with limit and cursor, in the search envelope', async () => {
    expect(chunks).toBeGreaterThan(2);
    const first = await page('?limit=2');
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      status: 'success',
      message: 'Passages found',
      result_count: chunks,
      result: [
        { chunk_id: expect.any(Number), chunk_index: 0, text: expect.stringMatching(/^Line 0 says/) },
        { chunk_id: expect.any(Number), chunk_index: 1, text: expect.any(String) },
      ],
      next_cursor: expect.any(String),
    });
    const indexes = first.body.result.map((p: any) => p.chunk_index);
    let cursor: string | null = first.body.next_cursor;
    while (cursor) {
      const next = await page(`?limit=2&cursor=${encodeURIComponent(cursor)}`);
      expect(next.status).toBe(200);
      indexes.push(...next.body.result.map((p: any) => p.chunk_index));
      cursor = next.body.next_cursor;
    }
    expect(indexes).toEqual(Array.from({ length: chunks }, (_, i) => i));
    const all = await page();
    expect(all.body.result).toHaveLength(chunks);
    expect(all.body.next_cursor).toBeNull();
    expect(all.body.result[chunks - 1].text).toMatch(/Line 89 says that puffins nest in burrows on cliffs\.$/);
  });

  it('answers 422 for a limit out of 1..200, 400 for a cursor no list gave', async () => {
    for (const limit of ['0', '201', 'x']) {
      const r = await page(`?limit=${limit}`);
      expect(r.status).toBe(422);
      expect(r.body.detail[0].loc).toEqual(['query', 'limit']);
    }
    expect(await page('?cursor=nope')).toMatchObject({ status: 400, body: { status: 'error', message: 'cursor: not one this list gave' } });
    const other = (await f.call('POST', `${V2}/objects`, { body: { content: text(60) } })).body.object_id;
    const theirs = (await page('?limit=1', { of: other })).body.next_cursor;
    expect((await page(`?cursor=${encodeURIComponent(theirs)}`)).status).toBe(400);
  });

  it("sees the object as GET does: 404 for another tenant, someone else's private one or a deleted one; 401, 403", async () => {
    expect((await page('', { auth: f.b })).status).toBe(404);
    expect((await page('', { auth: f.readOnly })).status).toBe(200);
    expect((await page('', { auth: f.noRoles })).status).toBe(403);
    expect((await page('', { auth: '' })).status).toBe(401);
    const secret = (
      await f.call('POST', `${V2}/objects`, { auth: f.aOther, body: { content: 'Mine alone.', system_metadata: { is_private: true } } })
    ).body.object_id;
    expect(await page('', { of: secret })).toMatchObject({ status: 404, body: { status: 'error', message: 'Object not found' } });
    expect((await page('', { of: secret, auth: f.aOther })).body.result).toEqual([
      { chunk_id: expect.any(Number), chunk_index: 0, text: 'Mine alone.' },
    ]);
    const gone = (await f.call('POST', `${V2}/objects`, { body: { content: 'Soon gone.' } })).body.object_id;
    expect((await f.call('DELETE', `${V2}/objects/${gone}`)).status).toBe(200);
    expect((await page('', { of: gone })).status).toBe(404);
    expect((await page('', { of: 'no-such-object' })).status).toBe(404);
  });

  it('is in the OpenAPI document', async () => {
    const doc = (await f.call('GET', '/cl/search/api/openapi.json')).body;
    const op = doc.paths['/cl/search/api/v2/objects/{object_id}/passages'].get;
    expect(op.parameters.map((p: any) => p.name).sort()).toEqual(['cursor', 'limit', 'object_id']);
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '401', '403', '404']));
  });
});
