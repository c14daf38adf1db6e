import { searchInProcess, type SearchInProcess } from './fixture';

/**
 * What a strict client expects of the spec's parameters: v1 basic search's `query_string` object
 * as JSON text in the URL selects what it selects in the body; v1's mandatory scalars are
 * required and typed (422 in FastAPI's shape); a v2 `object_ids` is an array of strings.
 *
 * In process: parameter parsing and validation of the search face, driven with supertest on the
 * express app (test/shared/in-process.ts), with no gateway, port or started platform.
 */
const V1 = '/cl/search/api/v1';
const V2 = '/cl/search/api/v2';
const ids = (body: { result: { object_id: string }[] }) => body.result.map((x) => x.object_id).sort();

describe('search parameters as the spec types them', () => {
  let f: SearchInProcess;
  const made: Record<string, string> = {};
  beforeAll(async () => {
    f = await searchInProcess();
    for (const [name, title, content] of [
      ['bread', 'Sourdough', 'Sourdough bread needs a starter and patience.'],
      ['rye', 'Rye loaf', 'Rye bread is dense and dark.'],
      ['tea', 'Green tea', 'Brew green tea below boiling.'],
    ]) {
      made[name] = (await f.call('POST', `${V2}/objects`, { body: { title, content } })).body.object_id;
    }
  }, 60_000);
  afterAll(() => f?.stop());

  describe('v1 basic_search: query_string as an object', () => {
    it.each([
      [{ title: 'sourdough' }, ['bread']],
      [{ text: 'bread', extra: 'dense' }, ['rye']],
      [{ words: 'bread' }, ['bread', 'rye']],
    ])('%j as JSON text in the URL selects what it selects in the body', async (object, expected) => {
      const url = new URLSearchParams({ query_string: JSON.stringify(object), start: '1', size: '10' });
      const viaUrl = await f.call('POST', `${V1}/basic_search?${url}`);
      const viaBody = await f.call('POST', `${V1}/basic_search`, {
        body: { query_dictionary: { query_string: object, start: 1, size: 10 } },
      });
      expect(viaUrl.status).toBe(200);
      expect(viaBody.status).toBe(200);
      expect(ids(viaUrl.body)).toEqual(expected.map((n) => made[n]).sort());
      expect(ids(viaUrl.body)).toEqual(ids(viaBody.body));
    });

    it('text that is not a JSON object stays the words; a JSON object nested too deep is refused', async () => {
      const plain = await f.call(
        'POST',
        `${V1}/basic_search?${new URLSearchParams({ query_string: '{sourdough', start: '1', size: '10' })}`,
      );
      expect(plain.status).toBe(200);
      const deep = await f.call(
        'POST',
        `${V1}/basic_search?${new URLSearchParams({ query_string: `${'{"a":'.repeat(10)}"x"${'}'.repeat(10)}`, start: '1', size: '10' })}`,
      );
      expect(deep.status).toBe(422);
      expect(deep.body.detail[0].loc).toEqual(['query', 'query_string']);
      const deeper = await f.call(
        'POST',
        `${V1}/basic_search?${new URLSearchParams({ query_string: `${'{"a":'.repeat(300)}"x"${'}'.repeat(300)}`, start: '1', size: '10' })}`,
      );
      expect(deeper.status).toBe(400);
      expect(deeper.body.status).toBe('error');
      expect(deeper.body.message).toMatch(/deeper than \d+ levels/);
    });
  });

  describe('v1 mandatory scalars', () => {
    const base = { query_string: 'bread', start: '1', size: '10' };
    it.each([
      ['semantic without min_relevant_score', 'POST', 'semantic', base, 'min_relevant_score', 'missing', 'Field required'],
      ['fulltext without min_relevant_score', 'POST', 'fulltext', base, 'min_relevant_score', 'missing', 'Field required'],
      [
        'semantic with min_relevant_score 0.5',
        'POST',
        'semantic',
        { ...base, min_relevant_score: '0.5' },
        'min_relevant_score',
        'int_parsing',
        'Input should be a valid integer, unable to parse string as an integer',
      ],
      [
        'fulltext with min_relevant_score "high"',
        'POST',
        'fulltext',
        { ...base, min_relevant_score: 'high' },
        'min_relevant_score',
        'int_parsing',
        'Input should be a valid integer, unable to parse string as an integer',
      ],
      ['search without re_ranked', 'POST', 'search', { query_string: 'bread' }, 're_ranked', 'missing', 'Field required'],
      [
        'search with re_ranked "maybe"',
        'POST',
        'search',
        { query_string: 'bread', re_ranked: 'maybe' },
        're_ranked',
        'bool_parsing',
        'Input should be a valid boolean, unable to interpret input',
      ],
      ['search_lite without re_ranked', 'GET', 'search_lite', { query_string: 'bread' }, 're_ranked', 'missing', 'Field required'],
    ])('%s: 422, HTTPValidationError naming it', async (_name, method, route, params, name, type, msg) => {
      const r = await f.call(method, `${V1}/${route}?${new URLSearchParams(params)}`);
      expect(r.status).toBe(422);
      expect(r.body).toEqual({ detail: [{ loc: ['query', name], msg, type }] });
    });

    it('given as the spec types them, they are answered', async () => {
      for (const route of ['semantic', 'fulltext']) {
        const r = await f.call('POST', `${V1}/${route}?${new URLSearchParams({ ...base, min_relevant_score: '0' })}`);
        expect(r.status).toBe(200);
        expect(ids(r.body)).toEqual([made.bread, made.rye].sort());
      }
      expect((await f.call('POST', `${V1}/search?query_string=bread&re_ranked=false`)).status).toBe(200);
      expect((await f.call('GET', `${V1}/search_lite?query_string=bread&re_ranked=true&top_k=1`)).status).toBe(200);
    });
  });

  describe('v2 object_ids', () => {
    it.each([
      ['a string', 'abc', ['body', 'object_ids'], 'list_type'],
      ['an object', { id: 'abc' }, ['body', 'object_ids'], 'list_type'],
      ['a list holding a number', [1], ['body', 'object_ids', 0], 'string_type'],
    ])('%s is a 422 naming object_ids on every v2 search', async (_name, objectIds, loc, type) => {
      for (const path of ['semantic', 'fulltext', 'basic_search', 'search', 'chunk/search']) {
        const r = await f.call('POST', `${V2}/${path}?query_string=bread`, { body: { object_ids: objectIds } });
        expect({ path, status: r.status }).toEqual({ path, status: 422 });
        expect(r.body.detail).toContainEqual(expect.objectContaining({ loc, type }));
      }
    });

    it('an array of strings narrows the search to them', async () => {
      const r = await f.call('POST', `${V2}/chunk/search?query_string=bread`, { body: { object_ids: [made.rye] } });
      expect(r.status).toBe(200);
      expect(new Set(ids(r.body))).toEqual(new Set([made.rye]));
    });
  });
});
