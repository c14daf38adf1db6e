import { docxWith } from '../../core/search/fixtures';
import { searchFixture, type SearchFixture } from './fixture';

/**
 * Documents through the graph (issue 34's console page): `uploadDocument` takes a file in base64
 * and `Document.passages` reads its passages page by page, over the gateway's /graphql of a started
 * platform. Small limits make every bound reachable: REST and GraphQL documents 64 KiB
 * (BODY_LIMIT_BYTES), /graphql bodies 256 KiB (GRAPHQL_MAX_BODY_BYTES), files 128 KiB
 * (SEARCH_MAX_UPLOAD_BYTES).
 */
const BODY_LIMIT = 64 * 1024;
const GRAPHQL_BODY = 256 * 1024;
const UPLOAD_LIMIT = 128 * 1024;

const UPLOAD = `mutation($input: UploadDocumentInput!) {
  uploadDocument(input: $input) { id title fileName fileExtension size tags isPrivate chunkCount }
}`;
const PASSAGES = `query($id: ID!, $first: Int, $after: String) {
  document(id: $id) { title passages(first: $first, after: $after) { total nextCursor items { chunkId chunkIndex text } } }
}`;

const b64 = (s: string | Uint8Array) => Buffer.from(s).toString('base64');
/** A text of `n` numbered sentences: about 200 words a passage, so several passages. */
const sentences = (n: number, topic: string) =>
  Array.from({ length: n }, (_, i) => `Sentence ${i} tells of ${topic} and the moss beside the stream.`).join(' ');

describe('documents through the graph: uploadDocument and Document.passages', () => {
  let f: SearchFixture;
  beforeAll(async () => {
    f = await searchFixture({
      BODY_LIMIT_BYTES: String(BODY_LIMIT),
      GRAPHQL_MAX_BODY_BYTES: String(GRAPHQL_BODY),
      SEARCH_MAX_UPLOAD_BYTES: String(UPLOAD_LIMIT),
    });
  }, 60_000);
  afterAll(() => f?.stop());

  const post = async (body: string, auth = f.a) => {
    const res = await fetch(`${f.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: auth },
      body,
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  const gql = (query: string, variables: Record<string, unknown> = {}, auth = f.a) => post(JSON.stringify({ query, variables }), auth);
  const upload = (input: Record<string, unknown>, auth = f.a) => gql(UPLOAD, { input }, auth);
  const refusal = (r: { body: any }) => ({ code: r.body.errors?.[0]?.extensions?.code, message: r.body.errors?.[0]?.message as string });

  it('uploads a .txt and a .md, finds them by search, and reads their passages page by page', async () => {
    const text = sentences(120, 'otters');
    const txt = await upload({ fileName: 'otters.txt', contentBase64: b64(text), tags: ['rivers'], customMetadata: { team: 'wild' } });
    expect(txt.body.errors).toBeUndefined();
    const doc = txt.body.data.uploadDocument;
    expect(doc).toMatchObject({ title: 'otters.txt', fileName: 'otters.txt', fileExtension: 'txt', size: text.length, tags: ['rivers'] });
    expect(doc.chunkCount).toBeGreaterThan(3);
    // Padding is optional: the same bytes without their `=`.
    const md = await upload({
      fileName: 'herons.md',
      contentBase64: b64('# Herons\n\nHerons stand still in the shallows.').replace(/=+$/, ''),
    });
    expect(md.body.errors).toBeUndefined();
    expect(md.body.data.uploadDocument).toMatchObject({ title: 'herons.md', fileExtension: 'md', chunkCount: 1 });

    const found = await gql('{ search(query: "otters moss", mode: FULLTEXT) { hits { document { id } } } }');
    expect(found.body.data.search.hits.map((h: any) => h.document.id)).toEqual([doc.id]);
    const heron = await gql(
      '{ search(query: "herons shallows", mode: HYBRID) { hits { document { fileName passages { total items { text } } } } } }',
    );
    expect(heron.body.data.search.hits[0].document).toEqual({
      fileName: 'herons.md',
      passages: { total: 1, items: [{ text: '# Herons\n\nHerons stand still in the shallows.' }] },
    });

    const seen: any[] = [];
    let after: string | null = null;
    do {
      const page: any = await gql(PASSAGES, { id: doc.id, first: 2, after });
      expect(page.body.errors).toBeUndefined();
      const p = page.body.data.document.passages;
      expect(p.total).toBe(doc.chunkCount);
      expect(p.items.length).toBeLessThanOrEqual(2);
      seen.push(...p.items);
      after = p.nextCursor;
    } while (after);
    expect(seen.map((p) => p.chunkIndex)).toEqual(Array.from({ length: doc.chunkCount }, (_, i) => i));
    expect(new Set(seen.map((p) => p.chunkId)).size).toBe(doc.chunkCount);
    expect(seen[0].text.startsWith('Sentence 0 tells of otters')).toBe(true);
    expect(seen[seen.length - 1].text.endsWith('Sentence 119 tells of otters and the moss beside the stream.')).toBe(true);
    // The default page holds them all (50).
    const all = await gql(PASSAGES, { id: doc.id });
    expect(all.body.data.document.passages.items).toEqual(seen);
    expect(all.body.data.document.passages.nextCursor).toBeNull();
  });

  // A .docx (a zip: binary bytes through base64), its kind from its media type when the name has no
  // extension. PDFs go through the same core as REST's; pdf.js does not load under jest (extract.test.ts runs it built).
  it('uploads a .docx, its text extracted, the kind from contentType when the name has no extension', async () => {
    const docx = await upload({
      fileName: 'report',
      contentType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      contentBase64: b64(await docxWith(['Narwhals have a single long tooth.', 'They live in Arctic waters.'])),
    });
    expect(docx.body.errors).toBeUndefined();
    expect(docx.body.data.uploadDocument).toMatchObject({ fileName: 'report', fileExtension: 'docx' });
    const texts = await gql(PASSAGES, { id: docx.body.data.uploadDocument.id });
    expect(texts.body.data.document.passages.items[0].text).toBe('Narwhals have a single long tooth.\n\nThey live in Arctic waters.');
  });

  it("lists the tenant's documents newest first with an empty BASIC search (the console's list)", async () => {
    const ids: string[] = [];
    for (const name of ['list-1.txt', 'list-2.txt', 'list-3.txt']) {
      ids.push((await upload({ fileName: name, contentBase64: b64(`Listed ${name}.`), tags: ['listed'] })).body.data.uploadDocument.id);
    }
    const list =
      await gql(`{ search(query: "", mode: BASIC, filter: { tags: ["listed"] }, sortBy: UPDATED_AT, order: DESC, pageNo: 1, pageSize: 2) {
      totalCount hits { document { id fileName } } } }`);
    expect(list.body.errors).toBeUndefined();
    expect(list.body.data.search.totalCount).toBe(3);
    expect(list.body.data.search.hits.map((h: any) => h.document.id)).toEqual([ids[2], ids[1]]);
    const second =
      await gql(`{ search(query: "", mode: BASIC, filter: { tags: ["listed"] }, sortBy: UPDATED_AT, order: DESC, pageNo: 2, pageSize: 2) {
      hits { document { id } } } }`);
    expect(second.body.data.search.hits.map((h: any) => h.document.id)).toEqual([ids[0]]);
  });

  it('refuses bad uploads with BAD_USER_INPUT naming the problem, leaving nothing behind', async () => {
    const before = (await gql('{ search(query: "", mode: BASIC, pageSize: 100) { totalCount } }')).body.data.search.totalCount;
    for (const [input, message] of [
      [{ fileName: 'a.txt', contentBase64: 'not base64!' }, /input\.contentBase64: Value should be base64/],
      [{ fileName: 'a.txt', contentBase64: 'aGVsbG8-_w' }, /Value should be base64/], // the URL-safe alphabet is not RFC 4648 §4's
      [{ fileName: 'a.txt', contentBase64: 'aGVs bG8=' }, /Value should be base64/],
      [{ fileName: 'a.txt', contentBase64: 'aGVsbG8==' }, /Value should be base64/], // padding that does not fit
      [{ fileName: 'a.txt', contentBase64: '' }, /input\.contentBase64: The file is empty/],
      [{ fileName: 'tool.exe', contentBase64: b64('MZ') }, /Cannot read "tool\.exe": only txt, md, html, pdf, docx files can be indexed/],
      [{ fileName: 'blank.txt', contentBase64: b64('  \n ') }, /Cannot read "blank\.txt": it contains no text/],
      [{ fileName: 'broken.docx', contentBase64: b64('this is not a zip') }, /Cannot read "broken\.docx": not a readable docx file/],
      [{ fileName: '', contentBase64: b64('x') }, /input\.fileName/],
      [{ fileName: 'a.txt', contentBase64: b64('x'), kvp: { a: { b: { c: { d: { e: { f: { g: { h: { i: 1 } } } } } } } } } }, /input\.kvp/],
    ] as const) {
      const r = await upload(input);
      expect(r.status).toBe(200);
      expect(refusal(r)).toEqual({ code: 'BAD_USER_INPUT', message: expect.stringMatching(message) });
      expect(r.body.data).toEqual({ uploadDocument: null });
    }
    expect((await gql('{ search(query: "", mode: BASIC, pageSize: 100) { totalCount } }')).body.data.search.totalCount).toBe(before);
  });

  it('takes a file over BODY_LIMIT_BYTES up to SEARCH_MAX_UPLOAD_BYTES; past it PAYLOAD_TOO_LARGE; past the body limit 413', async () => {
    const big = sentences(1400, 'beavers'); // about 90 KB: over the 64 KiB REST body limit once in base64
    expect(b64(big).length).toBeGreaterThan(BODY_LIMIT);
    const ok = await upload({ fileName: 'beavers.txt', contentBase64: b64(big) });
    expect(ok.body.errors).toBeUndefined();
    expect(ok.body.data.uploadDocument.size).toBe(big.length);
    const rest = await f.call('POST', '/cl/search/api/v2/objects', { body: { content: big } });
    expect(rest.status).toBe(413);

    const over = await upload({ fileName: 'over.txt', contentBase64: b64('x'.repeat(UPLOAD_LIMIT + 1)) });
    expect(refusal(over)).toEqual({
      code: 'PAYLOAD_TOO_LARGE',
      message: `File too large: at most ${UPLOAD_LIMIT} bytes (SEARCH_MAX_UPLOAD_BYTES)`,
    });
    expect(over.body.data).toEqual({ uploadDocument: null });

    const huge = await upload({ fileName: 'huge.txt', contentBase64: 'A'.repeat(GRAPHQL_BODY) });
    expect(huge.status).toBe(413);
    expect(huge.body).toEqual({
      errors: [
        {
          message: `Request body too large: at most ${GRAPHQL_BODY} bytes (GRAPHQL_MAX_BODY_BYTES)`,
          extensions: { code: 'PAYLOAD_TOO_LARGE' },
        },
      ],
    });
  });

  it('keeps the other bounds: a long document, a deep body, too many aliases', async () => {
    const long = await post(JSON.stringify({ query: `# ${'x'.repeat(BODY_LIMIT)}\n{ search(query: "x") { totalCount } }` }));
    expect(long.status).toBe(400);
    expect(refusal(long)).toEqual({ code: 'QUERY_TOO_LARGE', message: `The document is longer than ${BODY_LIMIT} characters, the limit` });
    const deep = await post(`{"query":"{ __typename }","variables":{"v":${'['.repeat(200)}${']'.repeat(200)}}}`);
    expect(deep.status).toBe(400);
    expect(refusal(deep).code).toBe('BAD_USER_INPUT');
    const aliases = Array.from({ length: 31 }, (_, i) => `u${i}: uploadDocument(input: $i) { id }`).join(' ');
    const many = await gql(`mutation($i: UploadDocumentInput!) { ${aliases} }`, { i: { fileName: 'a.txt', contentBase64: b64('x') } });
    expect(many.status).toBe(400);
    expect(['TOO_MANY_ALIASES', 'TOO_MANY_MUTATIONS']).toContain(refusal(many).code);
  });

  it('checks who uploads and who reads: UNAUTHENTICATED, FORBIDDEN, other tenants and other users see nothing', async () => {
    const input = { fileName: 'secret.txt', contentBase64: b64('Lynx tracks in the snow.') };
    expect(refusal(await upload(input, ''))).toMatchObject({ code: 'UNAUTHENTICATED' });
    expect(refusal(await upload(input, f.readOnly))).toMatchObject({ code: 'FORBIDDEN' });
    expect(refusal(await upload(input, f.noRoles))).toMatchObject({ code: 'FORBIDDEN' });

    const mine = (await upload(input)).body.data.uploadDocument.id;
    const theirs = await upload({ ...input, fileName: 'theirs.txt', isPrivate: true }, f.aOther);
    expect(theirs.body.data.uploadDocument).toMatchObject({ isPrivate: true });
    const privateId = theirs.body.data.uploadDocument.id;
    // Another tenant: the document is null, so are its passages.
    expect((await gql(PASSAGES, { id: mine }, f.b)).body).toEqual({ data: { document: null } });
    // Another user's private document in the same tenant: null too; its creator reads it.
    expect((await gql(PASSAGES, { id: privateId })).body).toEqual({ data: { document: null } });
    expect((await gql(PASSAGES, { id: privateId }, f.aOther)).body.data.document.passages.items[0].text).toBe('Lynx tracks in the snow.');
    // A reader (search:read) reads passages.
    expect((await gql(PASSAGES, { id: mine }, f.readOnly)).body.data.document.passages.total).toBe(1);
  });

  it('refuses bad paging arguments with BAD_USER_INPUT', async () => {
    const id = (await upload({ fileName: 'paging.txt', contentBase64: b64(sentences(60, 'voles')) })).body.data.uploadDocument.id;
    const other = (await upload({ fileName: 'other.txt', contentBase64: b64(sentences(60, 'shrews')) })).body.data.uploadDocument.id;
    for (const first of [0, 201, -1]) {
      const r = await gql(PASSAGES, { id, first });
      expect(refusal(r)).toMatchObject({ code: 'BAD_USER_INPUT', message: expect.stringContaining('first') });
    }
    expect(refusal(await gql(PASSAGES, { id, after: 'garbage' }))).toEqual({
      code: 'BAD_USER_INPUT',
      message: 'cursor: not one this list gave',
    });
    // Another document's cursor is no position in this one.
    const cursor = (await gql(PASSAGES, { id: other, first: 1 })).body.data.document.passages.nextCursor;
    expect(cursor).toEqual(expect.any(String));
    expect(refusal(await gql(PASSAGES, { id, after: cursor }))).toEqual({
      code: 'BAD_USER_INPUT',
      message: 'cursor: not one this list gave',
    });
    expect((await gql(PASSAGES, { id: other, first: 1, after: cursor })).body.data.document.passages.items[0].chunkIndex).toBe(1);
  });
});
