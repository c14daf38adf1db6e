import { docxWith } from '../../core/search/fixtures';
import { searchInProcess, type SearchInProcess } from './fixture';

/**
 * The objects of the search service over REST: JSON and multipart creates, parse failures, the
 * upload and per-tenant limits, PATCH, soft DELETE, other tenants' objects, parallel creates.
 *
 * In process: the search face's REST behaviour, driven with supertest on the express app
 * (test/shared/in-process.ts), the multipart bodies encoded as fetch encodes them. A client that
 * leaves midway through an upload is a matter of the socket and the started server:
 * test/e2e/search/upload-abort.test.ts.
 */
const V2 = '/cl/search/api/v2';

const form = (file: { name: string; bytes: Buffer | string; type?: string } | undefined, metadata?: unknown) => {
  const fd = new FormData();
  if (file) fd.append('file', new Blob([file.bytes], { type: file.type ?? 'application/octet-stream' }), file.name);
  if (metadata !== undefined) fd.append('metadata', typeof metadata === 'string' ? metadata : JSON.stringify(metadata));
  return fd;
};

describe('search service over HTTP: objects', () => {
  let f: SearchInProcess;
  beforeAll(async () => {
    f = await searchInProcess({ SEARCH_MAX_UPLOAD_BYTES: '20000' });
  }, 60_000);
  afterAll(() => f?.stop());

  const count = async (auth = f.a) =>
    (await f.call('POST', `${V2}/basic_search?query_string=&page_size=100`, { auth })).body.result_count as number;
  const fulltext = async (query: string, auth = f.a) =>
    (await f.call('POST', `${V2}/fulltext?query_string=${encodeURIComponent(query)}&min_relevant_score=0`, { auth })).body.result as {
      object_id: string;
      title: string;
    }[];

  it('JSON text: 201 and searchable at once; GET returns every field', async () => {
    const r = await f.call('POST', `${V2}/objects`, {
      body: {
        content: 'Otters hold hands while they sleep.',
        title: 'Otters',
        tags: ['animals'],
        ext_user_id_ref: 'u-1',
        media_metadata: { duration: 3 },
      },
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ status: 'success', message: 'Object created' });
    expect((await fulltext('otters sleep')).map((x) => x.object_id)).toEqual([r.body.object_id]);
    const got = await f.call('GET', `${V2}/objects/${r.body.object_id}`);
    expect(got.status).toBe(200);
    expect(got.body.result).toMatchObject({
      object_id: r.body.object_id,
      title: 'Otters',
      tags: ['animals'],
      ext_user_id_ref: 'u-1',
      media_metadata: { duration: 3 },
      object_type: 'Document',
      size: Buffer.byteLength('Otters hold hands while they sleep.'),
      system_metadata: { created_by: expect.any(String), is_private: false, is_deleted: false },
    });
  });

  it('multipart: a txt, an html and a docx file with metadata; each searchable by its text', async () => {
    const files = [
      { name: 'notes.txt', bytes: 'Walruses use their tusks to climb onto ice.', type: 'text/plain' },
      {
        name: 'page.html',
        bytes: '<html><body><h1>Penguins</h1><p>Penguins huddle for warmth.</p><script>steal()</script></body></html>',
        type: 'text/html',
      },
      { name: 'report.docx', bytes: await docxWith(['Narwhals have a single long tooth.']) },
    ];
    for (const [file, query] of [
      [files[0], 'walruses tusks'],
      [files[1], 'penguins huddle'],
      [files[2], 'narwhals tooth'],
    ] as const) {
      const r = await f.call('POST', `${V2}/objects`, { raw: form(file, { tags: ['upload'], folders: ['inbox'] }) });
      expect(r.status).toBe(201);
      const got = (await f.call('GET', `${V2}/objects/${r.body.object_id}`)).body.result;
      expect(got).toMatchObject({
        file_name: file.name,
        title: file.name,
        tags: ['upload'],
        folders: ['inbox'],
        size: Buffer.byteLength(file.bytes),
      });
      expect((await fulltext(query)).map((x) => x.object_id)).toContain(r.body.object_id);
    }
    expect(await fulltext('steal')).toEqual([]);
  });

  it('an upload that cannot be parsed is 400 naming the file, and nothing stays behind', async () => {
    const before = await count();
    const cases = [
      { name: 'broken.docx', bytes: 'this is not a zip' },
      { name: 'broken.pdf', bytes: '%PDF-1.4 nonsense' },
      { name: 'picture.png', bytes: '\x89PNG' },
      { name: 'empty.txt', bytes: '   ' },
      { name: 'latin1.txt', bytes: Buffer.from([0xe9, 0x74, 0xe9]) },
    ];
    for (const file of cases) {
      const r = await f.call('POST', `${V2}/objects`, { raw: form(file) });
      expect(r.status).toBe(400);
      expect(r.body.status).toBe('error');
      expect(r.body.message).toContain(file.name);
    }
    expect(await count()).toBe(before);
  });

  it('multipart mistakes: no file part, metadata not JSON or of the wrong type, a file over SEARCH_MAX_UPLOAD_BYTES', async () => {
    expect((await f.call('POST', `${V2}/objects`, { raw: form(undefined, {}) })).body).toEqual({
      status: 'error',
      message: 'No file part in the upload',
    });
    const notJson = await f.call('POST', `${V2}/objects`, { raw: form({ name: 'a.txt', bytes: 'x' }, '{oops') });
    expect(notJson).toMatchObject({ status: 400, body: { message: 'The metadata part is not valid JSON' } });
    const wrong = await f.call('POST', `${V2}/objects`, { raw: form({ name: 'a.txt', bytes: 'x' }, { tags: 'a', kvp: 3 }) });
    expect(wrong.status).toBe(422);
    expect(wrong.body.detail[0].loc).toEqual(['body', 'metadata', 'kvp']);
    const before = await count();
    const big = await f.call('POST', `${V2}/objects`, { raw: form({ name: 'big.txt', bytes: 'word '.repeat(5000) }) });
    expect(big.status).toBe(413);
    expect(big.body.message).toContain('20000');
    expect(await count()).toBe(before);
  });

  it('JSON mistakes: content missing or blank, wrong types: 422 naming the field', async () => {
    const missing = await f.call('POST', `${V2}/objects`, { body: { title: 'x' } });
    expect(missing.status).toBe(422);
    expect(missing.body.detail).toEqual([{ loc: ['body', 'content'], msg: 'Field required', type: 'missing' }]);
    const blank = await f.call('POST', `${V2}/objects`, { body: { content: '  ' } });
    expect(blank.body.detail[0].loc).toEqual(['body', 'content']);
    const types = await f.call('POST', `${V2}/objects`, {
      body: { content: 'x', tags: 'not-a-list-but-ok', folders: [1], custom_metadata: 'x' },
    });
    expect(types.body.detail.map((d: { loc: unknown[] }) => d.loc)).toEqual([
      ['body', 'folders', 0],
      ['body', 'custom_metadata'],
    ]);
  });

  it('PATCH replaces the fields given; the new title and tags are searched and filtered at once', async () => {
    const id = (
      await f.call('POST', `${V2}/objects`, { body: { content: 'Axolotls regrow their limbs.', title: 'Old title', tags: ['a'] } })
    ).body.object_id;
    const r = await f.call('PATCH', `${V2}/objects/${id}`, {
      body: { title: 'Salamander facts', tags: ['amphibians'], kvp: { lab: 'x' } },
    });
    expect(r.status).toBe(200);
    expect(r.body.result).toMatchObject({ title: 'Salamander facts', tags: ['amphibians'], kvp: { lab: 'x' } });
    expect(r.body.result.system_metadata.updated_by).toBeDefined();
    const byTitle = await f.call('POST', `${V2}/basic_search?query_string=salamander`, { body: { tags: ['amphibians'] } });
    expect(byTitle.body.result.map((x: { object_id: string }) => x.object_id)).toEqual([id]);
    expect((await f.call('POST', `${V2}/basic_search?query_string=old`, { body: {} })).body.result_count).toBe(0);
    const bad = await f.call('PATCH', `${V2}/objects/${id}`, { body: { tags: [{}] } });
    expect(bad.status).toBe(422);
  });

  it('DELETE is a soft delete: gone from every endpoint, GET 404, a second DELETE 404', async () => {
    const id = (await f.call('POST', `${V2}/objects`, { body: { content: 'Quokkas smile at tourists.', title: 'Quokka' } })).body.object_id;
    const del = await f.call('DELETE', `${V2}/objects/${id}`);
    expect(del).toMatchObject({ status: 200, body: { status: 'success', message: 'Object deleted', object_id: id } });
    expect(await fulltext('quokkas')).toEqual([]);
    for (const p of ['semantic', 'search', 'chunk/search']) {
      expect((await f.call('POST', `${V2}/${p}?query_string=quokkas&min_relevant_score=0`)).body.result).toEqual([]);
    }
    expect((await f.call('GET', `${V2}/objects/${id}`)).status).toBe(404);
    expect((await f.call('DELETE', `${V2}/objects/${id}`)).body).toEqual({ status: 'error', message: 'Object not found' });
    expect((await f.call('PATCH', `${V2}/objects/${id}`, { body: { title: 'x' } })).status).toBe(404);
  });

  it("another tenant's object: 404 for GET, PATCH and DELETE, and it is left unchanged", async () => {
    const id = (await f.call('POST', `${V2}/objects`, { body: { content: 'Tenant A owns this.', title: 'Mine' } })).body.object_id;
    expect((await f.call('GET', `${V2}/objects/${id}`, { auth: f.b })).status).toBe(404);
    expect((await f.call('PATCH', `${V2}/objects/${id}`, { auth: f.b, body: { title: 'Stolen' } })).status).toBe(404);
    expect((await f.call('DELETE', `${V2}/objects/${id}`, { auth: f.b })).status).toBe(404);
    expect((await f.call('GET', `${V2}/objects/${id}`)).body.result.title).toBe('Mine');
  });

  it('405 with Allow for a method the object path does not take', async () => {
    const r = await f.call('PUT', `${V2}/objects/some-id`, { body: {} });
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('GET, PATCH, DELETE, HEAD');
  });

  it('50 identical creates in parallel: 50 objects, all searchable, none lost', async () => {
    const results = await Promise.all(
      Array.from({ length: 50 }, () =>
        f.call('POST', `${V2}/objects`, { body: { content: 'Pangolins roll into a ball.', tags: ['race'] } }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(50).fill(201));
    expect(new Set(results.map((r) => r.body.object_id)).size).toBe(50);
    const found = await f.call('POST', `${V2}/basic_search?query_string=&page_size=100`, { body: { tags: ['race'] } });
    expect(found.body.result_count).toBe(50);
  });
});

describe('search service over HTTP: the objects-per-tenant limit', () => {
  let f: SearchInProcess;
  beforeAll(async () => {
    f = await searchInProcess({ SEARCH_MAX_OBJECTS_PER_TENANT: '5' });
  }, 60_000);
  afterAll(() => f?.stop());

  it('holds under 20 parallel creates: exactly 5 land, the rest are 409 naming the limit; deleting frees room', async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => f.call('POST', `${V2}/objects`, { body: { content: `Item ${i}` } })),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(5);
    const refused = results.filter((r) => r.status !== 201);
    expect(refused.every((r) => r.status === 409 && r.body.message.includes('5 objects'))).toBe(true);
    expect((await f.call('POST', `${V2}/objects`, { auth: f.b, body: { content: 'other tenant' } })).status).toBe(201);
    await f.call('DELETE', `${V2}/objects/${results.find((r) => r.status === 201)!.body.object_id}`);
    expect((await f.call('POST', `${V2}/objects`, { body: { content: 'room again' } })).status).toBe(201);
  });
});
