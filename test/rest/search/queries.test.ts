import { searchInProcess, type SearchInProcess } from './fixture';

/**
 * Every search endpoint of v1 and v2: envelopes, paging, sorting, filters, modes, tenant isolation,
 * private objects, and the answers to bad input (422, 400, 405, 404, 401, 403).
 *
 * In process: all of it is the search face's REST behaviour, driven with supertest on the express
 * app (test/shared/in-process.ts), with no gateway, port or started platform.
 */

const V1 = '/cl/search/api/v1';
const V2 = '/cl/search/api/v2';
const q = (params: Record<string, string | number | boolean | string[]>) => {
  const u = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) for (const x of Array.isArray(v) ? v : [v]) u.append(k, String(x));
  return `?${u}`;
};

describe('search service over HTTP: every search endpoint', () => {
  let f: SearchInProcess;
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    f = await searchInProcess();
    const add = async (name: string, body: Record<string, unknown>, auth = f.a) => {
      const r = await f.call('POST', `${V2}/objects`, { body, auth });
      expect(r.status).toBe(201);
      ids[name] = r.body.object_id;
    };
    await add('glacier', {
      title: 'Glacier retreat',
      content: 'Glaciers retreat as the climate warms. Sea levels rise along every coast.',
      tags: ['science', 'ice'],
      folders: ['reports'],
      repos: ['main'],
      kvp: { region: 'alps' },
      object_type: 'Document',
      file_name: 'glacier.txt',
      custom_metadata: { team: 'geo' },
    });
    await add('mars', {
      title: 'Mars weather',
      content: 'The climate of Mars is cold and dry, with dust storms.',
      tags: ['science', 'space'],
      folders: ['reports'],
      kvp: { region: 'space' },
      file_name: 'mars.md',
    });
    await add('bread', {
      title: 'Sourdough',
      content: 'Sourdough bread needs a starter, flour, water and patience.',
      tags: ['food'],
      kvp: { cuisine: 'french' },
      object_type: 'Recipe',
    });
    await add(
      'secret',
      { title: 'Private climate notes', content: 'My private climate notes about glaciers.', system_metadata: { is_private: true } },
      f.aOther,
    );
    await add(
      'tenantB',
      { title: 'Climate of tenant B', content: 'Glaciers retreat as the climate warms, says tenant B.', tags: ['science'] },
      f.b,
    );
  }, 60_000);
  afterAll(() => f?.stop());

  describe('v2', () => {
    it('fulltext: the envelope, the result items and both aggregation names', async () => {
      const r = await f.call('POST', `${V2}/fulltext${q({ query_string: 'glaciers climate', min_relevant_score: 0 })}`, { body: {} });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ status: 'success', message: 'Documents found', result_count: 2 });
      expect(r.body.result.map((x: { object_id: string }) => x.object_id)).toEqual([ids.glacier, ids.mars]);
      const item = r.body.result[0];
      for (const k of [
        'object_id',
        'title',
        'file_name',
        'file_extension',
        'object_type',
        'size',
        'score',
        'snippet',
        'repos',
        'folders',
        'tags',
        'kvp',
        'taxonomy',
        'ext_user_id_ref',
        'system_metadata',
        'custom_metadata',
        'media_metadata',
        'source_system_metadata',
        'created_at',
        'updated_at',
      ])
        expect(item).toHaveProperty(k);
      expect(item).toMatchObject({
        title: 'Glacier retreat',
        file_extension: 'txt',
        tags: ['science', 'ice'],
        score: 1,
        kvp: { region: 'alps' },
      });
      expect(item.system_metadata).toMatchObject({ is_private: false, is_deleted: false });
      expect(r.body.aggregation).toEqual(r.body.aggregations);
      expect(r.body.aggregation.tags).toEqual([
        { key: 'science', doc_count: 2 },
        { key: 'ice', doc_count: 1 },
        { key: 'space', doc_count: 1 },
      ]);
      expect(r.body.aggregation.folders).toEqual([{ key: 'reports', doc_count: 2 }]);
    });

    it('fulltext: min_relevant_score defaults to 0.5 and filters on the [0,1] score', async () => {
      const all = await f.call('POST', `${V2}/fulltext${q({ query_string: 'glaciers sea coast', min_relevant_score: 0 })}`);
      const scores: number[] = all.body.result.map((x: { score: number }) => x.score);
      expect(scores[0]).toBe(1);
      expect(scores.every((s) => s >= 0 && s <= 1)).toBe(true);
      const byDefault = await f.call('POST', `${V2}/fulltext${q({ query_string: 'glaciers sea coast' })}`);
      expect(byDefault.body.result.every((x: { score: number }) => x.score >= 0.5)).toBe(true);
      expect(byDefault.body.result_count).toBe(scores.filter((s) => s >= 0.5).length);
    });

    it('no match: 200, result_count 0, "No documents found"', async () => {
      const r = await f.call('POST', `${V2}/fulltext${q({ query_string: 'zeppelin' })}`, { body: {} });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ status: 'success', message: 'No documents found', result_count: 0, result: [] });
    });

    it('paging: page_no and page_size, 1-based; result_count counts every match', async () => {
      const p1 = await f.call('POST', `${V2}/fulltext${q({ query_string: 'climate', page_size: 1, min_relevant_score: 0 })}`);
      const p2 = await f.call('POST', `${V2}/fulltext${q({ query_string: 'climate', page_size: 1, page_no: 2, min_relevant_score: 0 })}`);
      expect(p1.body.result_count).toBe(2);
      expect(p1.body.result).toHaveLength(1);
      expect(p2.body.result).toHaveLength(1);
      expect(p2.body.result[0].object_id).not.toBe(p1.body.result[0].object_id);
    });

    it('sorting_by title and updated_at, asc and desc', async () => {
      const titles = async (by: string, order: string) =>
        (
          await f.call('POST', `${V2}/fulltext${q({ query_string: 'climate', sorting_by: by, order, min_relevant_score: 0 })}`)
        ).body.result.map((x: { title: string }) => x.title);
      expect(await titles('title', 'asc')).toEqual(['Glacier retreat', 'Mars weather']);
      expect(await titles('title', 'desc')).toEqual(['Mars weather', 'Glacier retreat']);
      expect(await titles('updated_at', 'desc')).toEqual(['Mars weather', 'Glacier retreat']);
    });

    it('body filters are applied inside the query: tags, folders, kvp, object_type, file_extension, custom_metadata, object_ids', async () => {
      const found = async (body: unknown) =>
        (await f.call('POST', `${V2}/fulltext${q({ query_string: 'climate', min_relevant_score: 0 })}`, { body })).body.result.map(
          (x: { object_id: string }) => x.object_id,
        );
      expect(await found({ kvp: { region: 'space' } })).toEqual([ids.mars]);
      expect(await found({ tags: ['ice'] })).toEqual([ids.glacier]);
      expect(await found({ file_extension: ['md'] })).toEqual([ids.mars]);
      expect(await found({ custom_metadata: { team: 'geo' } })).toEqual([ids.glacier]);
      expect(await found({ object_ids: [ids.mars, ids.bread] })).toEqual([ids.mars]);
      expect(await found({ folders: ['reports'], tags: ['space', 'ice'], object_type: ['Document'] })).toHaveLength(2);
      expect(await found({ title: 'WEATHER' })).toEqual([ids.mars]);
      expect(await found({ tags: [], kvp: {}, folders: null })).toHaveLength(2);
    });

    it('semantic ranks by meaning of shared words, scores (1+cos)/2', async () => {
      const r = await f.call('POST', `${V2}/semantic${q({ query_string: 'sourdough starter' })}`, { body: {} });
      expect(r.status).toBe(200);
      expect(r.body.result[0].object_id).toBe(ids.bread);
      expect(r.body.result[0].score).toBeGreaterThan(0.5);
    });

    it('search (hybrid): re_ranked true by default and false; page_size minimum 20', async () => {
      for (const reRanked of [true, false]) {
        const r = await f.call('POST', `${V2}/search${q({ query_string: 'bread flour', re_ranked: reRanked })}`, { body: {} });
        expect(r.status).toBe(200);
        expect(r.body.result[0].object_id).toBe(ids.bread);
      }
      const small = await f.call('POST', `${V2}/search${q({ query_string: 'bread', page_size: 19 })}`, { body: {} });
      expect(small.status).toBe(422);
      expect(small.body.detail[0]).toMatchObject({ loc: ['query', 'page_size'], type: 'greater_than_equal' });
    });

    it('basic_search: titles by word prefix; with_exact_search; with_highlight; is_anywhere', async () => {
      const ids_ = async (query: string, body: unknown = {}) =>
        (await f.call('POST', `${V2}/basic_search${q({ query_string: query })}`, { body })).body.result.map(
          (x: { object_id: string }) => x.object_id,
        );
      expect(await ids_('glac')).toEqual([ids.glacier]);
      expect(await ids_('retreat glacier', { with_exact_search: true })).toEqual([]);
      expect(await ids_('glacier retreat', { with_exact_search: true })).toEqual([ids.glacier]);
      expect(await ids_('patience')).toEqual([]);
      expect(await ids_('patience', { is_anywhere: true })).toEqual([ids.bread]);
      expect(await ids_('', { tags: ['food'] })).toEqual([ids.bread]);
      const hl = await f.call('POST', `${V2}/basic_search${q({ query_string: 'mars' })}`, { body: { with_highlight: true } });
      expect(hl.body.result[0].highlights).toContainEqual({ field: 'title', fragment: '<em>Mars</em> weather' });
      const plain = await f.call('POST', `${V2}/basic_search${q({ query_string: 'mars' })}`, { body: {} });
      expect(plain.body.result[0]).not.toHaveProperty('highlights');
    });

    it('chunk/search: passages with chunk fields and error null, over object_ids', async () => {
      const r = await f.call('POST', `${V2}/chunk/search${q({ query_string: 'climate' })}`, { body: { object_ids: [ids.mars] } });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ status: 'success', error: null, result_count: 1 });
      expect(r.body.result[0]).toMatchObject({ object_id: ids.mars, chunk_index: 0, title: 'Mars weather', file_name: 'mars.md' });
      expect(r.body.result[0].text).toContain('dust storms');
      expect(typeof r.body.result[0].chunk_id).toBe('number');
      const defaults = await f.call('POST', `${V2}/chunk/search${q({ query_string: 'climate' })}`);
      expect(defaults.body.result.length).toBeLessThanOrEqual(5);
    });
  });

  describe('v1', () => {
    it('semantic and fulltext: query parameters, start/size paging, repeated tags, kvp as JSON text, min_relevant_score in percent', async () => {
      const r = await f.call(
        'POST',
        `${V1}/fulltext${q({ query_string: 'climate', start: 1, size: 10, min_relevant_score: 0, tags: ['space', 'food'] })}`,
      );
      expect(r.status).toBe(200);
      expect(r.body.result.map((x: { object_id: string }) => x.object_id)).toEqual([ids.mars]);
      const kvp = await f.call(
        'POST',
        `${V1}/semantic${q({ query_string: 'climate', start: 1, size: 10, min_relevant_score: 0, kvp: '{"region":"alps"}' })}`,
      );
      expect(kvp.body.result.map((x: { object_id: string }) => x.object_id)).toEqual([ids.glacier]);
      const strict = await f.call(
        'POST',
        `${V1}/fulltext${q({ query_string: 'glaciers sea coast', start: 1, size: 10, min_relevant_score: 100 })}`,
      );
      expect(strict.body.result_count).toBe(1);
    });

    it('requires query_string, start, size and min_relevant_score', async () => {
      const r = await f.call('POST', `${V1}/semantic${q({ query_string: 'x' })}`);
      expect(r.status).toBe(422);
      expect(r.body.detail.map((d: { loc: string[] }) => d.loc)).toEqual([
        ['query', 'start'],
        ['query', 'size'],
        ['query', 'min_relevant_score'],
      ]);
    });

    it('basic_search: query parameters or the query_dictionary body, date ranges', async () => {
      const viaQuery = await f.call('POST', `${V1}/basic_search${q({ query_string: 'sourdough', start: 1, size: 5 })}`);
      expect(viaQuery.body.result.map((x: { object_id: string }) => x.object_id)).toEqual([ids.bread]);
      const viaBody = await f.call('POST', `${V1}/basic_search`, {
        body: { query_dictionary: { query_string: 'sourdough', start: 1, size: 5 }, source: 'ui' },
      });
      expect(viaBody.body.result.map((x: { object_id: string }) => x.object_id)).toEqual([ids.bread]);
      const future = await f.call('POST', `${V1}/basic_search`, {
        body: { query_dictionary: { start: 1, size: 5, created_between: ['2999-01-01', null] } },
      });
      expect(future.body.result_count).toBe(0);
      const past = await f.call('POST', `${V1}/basic_search`, {
        body: { query_dictionary: { start: 1, size: 50, created_between: ['2000-01-01', null] } },
      });
      expect(past.body.result_count).toBe(3);
      const bad = await f.call('POST', `${V1}/basic_search`, {
        body: { query_dictionary: { start: 1, size: 5, created_between: ['yesterday'] } },
      });
      expect(bad.status).toBe(422);
    });

    it('search and search_lite: data is one string of the top_k passages, headed by rank, title and object id', async () => {
      const r = await f.call('POST', `${V1}/search${q({ query_string: 'sourdough bread', top_k: 2, re_ranked: true })}`);
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ status: 'success', message: 'Documents found' });
      expect(r.body.data).toMatch(new RegExp(`^\\[1\\] Sourdough \\(object_id: ${ids.bread}, score: 1\\.000\\)\\nSourdough bread needs`));
      const lite = await f.call('GET', `${V1}/search_lite${q({ query_string: 'dust storms', re_ranked: false })}`);
      expect(lite.status).toBe(200);
      expect(lite.body.data.startsWith(`[1] Mars weather (object_id: ${ids.mars}`)).toBe(true);
      expect((lite.body.data.match(/^\[\d+\]/gm) ?? []).length).toBeLessThanOrEqual(5);
    });

    it('health, with or without a trailing slash, needs no token', async () => {
      for (const path of [`${V1}/healthz/`, `${V1}/healthz`]) {
        const r = await f.call('GET', path, { auth: '' });
        expect(r).toMatchObject({ status: 200, body: { msg: 'ok' } });
      }
    });
  });

  describe('isolation and privacy', () => {
    it("tenant B never sees tenant A's objects through any search, aggregation or object id", async () => {
      const paths = [`${V2}/fulltext`, `${V2}/semantic`, `${V2}/search`, `${V2}/basic_search`, `${V2}/chunk/search`];
      for (const p of paths) {
        const r = await f.call('POST', `${p}${q({ query_string: 'glaciers climate', min_relevant_score: 0 })}`, {
          auth: f.b,
          body: { is_anywhere: true },
        });
        expect(r.status).toBe(200);
        expect(r.body.result.map((x: { object_id: string }) => x.object_id)).toEqual([ids.tenantB]);
        expect(JSON.stringify(r.body.aggregation)).not.toMatch(/ice|space|reports/);
      }
      const v1 = await f.call('POST', `${V1}/search${q({ query_string: 'glaciers climate', re_ranked: true })}`, { auth: f.b });
      expect(v1.body.data).not.toContain(ids.glacier);
      for (const id of [ids.glacier, ids.secret]) expect((await f.call('GET', `${V2}/objects/${id}`, { auth: f.b })).status).toBe(404);
    });

    it('a private object is visible to its creator only', async () => {
      const mine = await f.call('POST', `${V2}/fulltext${q({ query_string: 'private notes', min_relevant_score: 0 })}`, { auth: f.aOther });
      expect(mine.body.result.map((x: { object_id: string }) => x.object_id)).toContain(ids.secret);
      const theirs = await f.call('POST', `${V2}/fulltext${q({ query_string: 'private notes', min_relevant_score: 0 })}`);
      expect(theirs.body.result.map((x: { object_id: string }) => x.object_id)).not.toContain(ids.secret);
      expect((await f.call('GET', `${V2}/objects/${ids.secret}`)).status).toBe(404);
    });
  });

  describe('bad input gets a clear answer', () => {
    it.each([
      ['missing query_string', `${V2}/fulltext`, ['query', 'query_string'], 'missing'],
      ['page_no 0', `${V2}/fulltext?query_string=x&page_no=0`, ['query', 'page_no'], 'greater_than_equal'],
      ['page_no not a number', `${V2}/semantic?query_string=x&page_no=two`, ['query', 'page_no'], 'int_parsing'],
      ['page_size over 100', `${V2}/basic_search?query_string=x&page_size=101`, ['query', 'page_size'], 'less_than_equal'],
      ['unknown sorting_by', `${V2}/fulltext?query_string=x&sorting_by=size`, ['query', 'sorting_by'], 'enum'],
      ['unknown order', `${V2}/fulltext?query_string=x&order=up`, ['query', 'order'], 'enum'],
      [
        'min_relevant_score over 1',
        `${V2}/fulltext?query_string=x&min_relevant_score=2`,
        ['query', 'min_relevant_score'],
        'less_than_equal',
      ],
      ['a query over 1000 characters', `${V2}/fulltext?query_string=${'a'.repeat(1001)}`, ['query', 'query_string'], 'string_too_long'],
      ['re_ranked not a boolean', `${V2}/search?query_string=x&re_ranked=maybe`, ['query', 're_ranked'], 'bool_parsing'],
    ])('%s: 422 naming the field', async (_name, path, loc, type) => {
      const r = await f.call('POST', path, { body: {} });
      expect(r.status).toBe(422);
      expect(r.body.detail[0]).toMatchObject({ loc, type });
    });

    it.each([
      ['tags holding a number', { tags: [1] }, ['body', 'tags', 0]],
      ['kvp not an object', { kvp: [1] }, ['body', 'kvp']],
      ['size not an integer', { size: 'big' }, ['body', 'size']],
      [
        'metadata nested too deep',
        { custom_metadata: { a: { b: { c: { d: { e: { f: { g: { h: { i: 1 } } } } } } } } } },
        ['body', 'custom_metadata'],
      ],
    ])('malformed filter object (%s): 422 naming the field', async (_name, body, loc) => {
      const r = await f.call('POST', `${V2}/fulltext?query_string=x`, { body });
      expect(r.status).toBe(422);
      expect(r.body.detail.map((d: { loc: unknown }) => d.loc)).toContainEqual(loc);
    });

    it('malformed JSON is 400 in the error envelope; wrong method 405 with Allow; unknown path 404', async () => {
      const bad = await f.call('POST', `${V2}/fulltext?query_string=x`, {
        raw: '{"tags": [',
        headers: { 'content-type': 'application/json' },
      });
      expect(bad).toMatchObject({ status: 400, body: { status: 'error', message: 'Malformed JSON body' } });
      const method = await f.call('GET', `${V2}/fulltext?query_string=x`);
      expect(method.status).toBe(405);
      expect(method.headers.get('allow')).toBe('POST');
      expect(method.body).toEqual({ status: 'error', message: 'Method Not Allowed' });
      expect((await f.call('POST', `${V2}/nothing`)).status).toBe(404);
    });

    it('no token or a bad one: 401 with WWW-Authenticate; missing role: 403', async () => {
      const none = await f.call('POST', `${V2}/fulltext?query_string=x`, { auth: '' });
      expect(none.status).toBe(401);
      expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(none.body).toEqual({ status: 'error', message: 'Not authenticated' });
      expect((await f.call('POST', `${V2}/fulltext?query_string=x`, { auth: 'Bearer not.a.jwt' })).status).toBe(401);
      expect((await f.call('POST', `${V2}/fulltext?query_string=x`, { auth: f.noRoles })).status).toBe(403);
      expect((await f.call('POST', `${V2}/objects`, { auth: f.readOnly, body: { content: 'x' } })).status).toBe(403);
      expect((await f.call('POST', `${V2}/fulltext?query_string=climate`, { auth: f.readOnly })).status).toBe(200);
    });
  });
});
