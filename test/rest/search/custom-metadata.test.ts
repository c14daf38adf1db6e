import { addOwls } from './owls';
import { searchInProcess, type SearchInProcess } from './fixture';

/**
 * An object's tags, kvp and taxonomy are its custom metadata (the spec names custom_metadata's
 * fields so): given there at ingest they become the object's, a custom_metadata filter on them
 * reaches them in every mode, and an object shows them in its custom_metadata.
 *
 * In process: REST behaviour of the search face alone (supertest on the express app, no gateway,
 * no port). The same filter through the federated graph is a gateway matter and stays in
 * test/e2e/search/graphql.test.ts, over these same objects (./owls.ts).
 */
const V1 = '/cl/search/api/v1';
const V2 = '/cl/search/api/v2';
const q = (params: Record<string, string | number | boolean>) =>
  `?${new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)]))}`;
const idsOf = (body: { result: { object_id: string }[] }) => [...new Set(body.result.map((x) => x.object_id))].sort();

describe("custom_metadata: tags, kvp and taxonomy are the object's own", () => {
  let f: SearchInProcess;
  let ids: Record<'inner' | 'top' | 'other' | 'upload', string>;
  beforeAll(async () => {
    f = await searchInProcess();
    ids = await addOwls(f.call);
  }, 60_000);
  afterAll(() => f?.stop());

  const byTag = { custom_metadata: { tags: ['x'] } };

  it.each([
    ['semantic', `${V2}/semantic${q({ query_string: 'owls', min_relevant_score: 0 })}`, byTag],
    ['fulltext', `${V2}/fulltext${q({ query_string: 'owls', min_relevant_score: 0 })}`, byTag],
    ['basic_search', `${V2}/basic_search${q({ query_string: 'owls' })}`, { ...byTag, is_anywhere: true }],
    ['basic_search, no words', `${V2}/basic_search${q({ query_string: '' })}`, byTag],
    ['search (hybrid)', `${V2}/search${q({ query_string: 'owls' })}`, byTag],
    ['chunk/search', `${V2}/chunk/search${q({ query_string: 'owls' })}`, byTag],
  ])('v2 %s: {"custom_metadata":{"tags":["x"]}} finds the objects tagged x, however the tag was given', async (_mode, path, body) => {
    const r = await f.call('POST', path, { body });
    expect(r.status).toBe(200);
    expect(idsOf(r.body)).toEqual([ids.inner, ids.top].sort());
  });

  it("kvp and taxonomy inside custom_metadata filter the object's kvp and taxonomy; other keys filter as before", async () => {
    const found = async (body: unknown) =>
      idsOf((await f.call('POST', `${V2}/fulltext${q({ query_string: 'owls', min_relevant_score: 0 })}`, { body })).body);
    expect(await found({ custom_metadata: { kvp: { region: 'north' } } })).toEqual([ids.inner]);
    expect(await found({ kvp: { region: 'north' } })).toEqual([ids.inner]);
    expect(await found({ custom_metadata: { taxonomy: { domain: 'birds' } } })).toEqual([ids.inner]);
    expect(await found({ taxonomy: { domain: 'birds' } })).toEqual([ids.inner]);
    expect(await found({ custom_metadata: { team: 'owl' } })).toEqual([ids.inner]);
    // Each filter given is one more condition: the top-level tags AND custom_metadata's.
    expect(await found({ tags: ['z'], custom_metadata: { tags: ['y'] } })).toEqual([ids.upload]);
    expect(await found({ tags: ['x'], custom_metadata: { tags: ['y'] } })).toEqual([]);
    const chunks = await f.call('POST', `${V2}/chunk/search${q({ query_string: 'owls' })}`, {
      body: { custom_metadata: { kvp: { habitat: 'farm' } } },
    });
    expect(idsOf(chunks.body)).toEqual([ids.upload]);
  });

  it('v1 tags, kvp and taxonomy find what custom_metadata gave', async () => {
    const v1 = (route: string, extra: Record<string, string | number | boolean>) =>
      f.call(route === 'search_lite' ? 'GET' : 'POST', `${V1}/${route}${q({ query_string: 'owls', ...extra })}`);
    expect(idsOf((await v1('fulltext', { start: 1, size: 10, min_relevant_score: 0, tags: 'x' })).body)).toEqual(
      [ids.inner, ids.top].sort(),
    );
    expect(idsOf((await v1('semantic', { start: 1, size: 10, min_relevant_score: 0, kvp: '{"region":"north"}' })).body)).toEqual([
      ids.inner,
    ]);
    expect(idsOf((await v1('basic_search', { start: 1, size: 10, tags: 'x' })).body)).toEqual([ids.inner, ids.top].sort());
    const passages = await v1('search', { re_ranked: true, taxonomy: '{"domain":"birds"}' });
    expect(passages.body.data).toContain(`object_id: ${ids.inner}`);
    expect(passages.body.data).not.toContain(ids.top);
  });

  it('an object shows its tags, kvp and taxonomy in its custom_metadata; given at both levels they combine', async () => {
    const inner = (await f.call('GET', `${V2}/objects/${ids.inner}`)).body.result;
    expect(inner).toMatchObject({ tags: ['x'], kvp: { region: 'north' }, taxonomy: { domain: 'birds' } });
    expect(inner.custom_metadata).toEqual({ team: 'owl', tags: ['x'], kvp: { region: 'north' }, taxonomy: { domain: 'birds' } });
    const hits = (await f.call('POST', `${V2}/fulltext${q({ query_string: 'barns', min_relevant_score: 0 })}`)).body.result;
    const top = hits.find((h: { object_id: string }) => h.object_id === ids.top);
    expect(top.custom_metadata).toEqual({ tags: ['x'], kvp: {}, taxonomy: {} });
    // Tags united (top level first); kvp merged, the top level winning a key.
    const upload = (await f.call('GET', `${V2}/objects/${ids.upload}`)).body.result;
    expect(upload).toMatchObject({ tags: ['z', 'y'], kvp: { region: 'south', habitat: 'farm' } });
    expect(upload.custom_metadata).toMatchObject({ tags: ['z', 'y'], kvp: { region: 'south', habitat: 'farm' } });
    // Basic search matches the words of tags however they were given.
    const basic = await f.call('POST', `${V2}/basic_search${q({ query_string: 'y' })}`, { body: {} });
    expect(idsOf(basic.body)).toEqual([ids.upload]);
  });

  it("PATCH: custom_metadata's tags replace the object's; its other keys replace the other keys", async () => {
    const r = await f.call('PATCH', `${V2}/objects/${ids.other}`, { body: { custom_metadata: { tags: ['q'], team: 'arctic' } } });
    expect(r.status).toBe(200);
    expect(r.body.result).toMatchObject({ tags: ['q'], custom_metadata: { tags: ['q'], team: 'arctic' } });
    const found = await f.call('POST', `${V2}/fulltext${q({ query_string: 'owls', min_relevant_score: 0 })}`, {
      body: { custom_metadata: { tags: ['q'] } },
    });
    expect(idsOf(found.body)).toEqual([ids.other]);
    const untouched = await f.call('PATCH', `${V2}/objects/${ids.other}`, { body: { custom_metadata: { team: 'polar' } } });
    expect(untouched.body.result.tags).toEqual(['q']);
    expect(untouched.body.result.custom_metadata).toEqual({ team: 'polar', tags: ['q'], kvp: {}, taxonomy: {} });
  });

  it.each([
    ['a search body', 'POST', `${V2}/fulltext?query_string=owls`, { custom_metadata: { tags: 'x' } }, ['body', 'custom_metadata', 'tags']],
    [
      'a chunk search body',
      'POST',
      `${V2}/chunk/search?query_string=owls`,
      { custom_metadata: { tags: [1] } },
      ['body', 'custom_metadata', 'tags', 0],
    ],
    ['a new object', 'POST', `${V2}/objects`, { content: 'x', custom_metadata: { kvp: ['a'] } }, ['body', 'custom_metadata', 'kvp']],
    [
      'a new object',
      'POST',
      `${V2}/objects`,
      { content: 'x', custom_metadata: { taxonomy: 'birds' } },
      ['body', 'custom_metadata', 'taxonomy'],
    ],
  ])("custom_metadata's tags, kvp or taxonomy of the wrong type in %s: 422 naming it", async (_where, method, path, body, loc) => {
    const r = await f.call(method, path, { body });
    expect(r.status).toBe(422);
    expect(r.body.detail.map((d: { loc: unknown }) => d.loc)).toContainEqual(loc);
  });
});
