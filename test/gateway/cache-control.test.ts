import { createHash } from 'node:crypto';
import { cacheGraph, get, post, type CacheGraph } from './cache-graph';

/** Cache-Control from the graph's @cacheControl hints, black-box over HTTP (no response cache). */
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

describe('the gateway: Cache-Control from cache hints', () => {
  let g: CacheGraph;
  beforeAll(async () => {
    g = await cacheGraph();
  });
  afterAll(async () => {
    await g.stop();
  });

  it('gives a GET of a public cacheable query `max-age=N, public`, the lowest maxAge of its fields', async () => {
    const a = await get(g.url, { query: '{ models { id name } }' });
    expect(a.status).toBe(200);
    expect(a.body).toEqual({ data: { models: [{ id: 'm1', name: 'One' }] } });
    expect(a.cacheControl).toBe('max-age=60, public');
    expect(a.vary ?? '').not.toMatch(/authorization/i);
    expect((await get(g.url, { query: '{ models { id } counter }' })).cacheControl).toBe('max-age=60, public');
  });

  it('gives a private answer `private` and Vary on the credentials, merged with CORS’s Vary: Origin', async () => {
    const a = await get(g.url, { query: '{ me { id } }' });
    expect(a.cacheControl).toBe('max-age=30, private');
    expect(a.vary).toMatch(/authorization, api-key/i);
    // A field of another subgraph makes the whole answer private.
    const across = await get(g.url, { query: '{ models { id usage } }' }, { origin: 'https://app.example' });
    expect(across.body).toEqual({ data: { models: [{ id: 'm1', usage: 7 }] } });
    expect(across.cacheControl).toBe('max-age=60, private');
    expect(across.vary?.split(/,\s*/).map((v) => v.toLowerCase())).toEqual(['origin', 'authorization', 'api-key']);
  });

  it('gives `no-store` to an unhinted query, a mutation, introspection and an answer with errors', async () => {
    expect((await get(g.url, { query: '{ unhinted }' })).cacheControl).toBe('no-store');
    expect((await get(g.url, { query: '{ models { id } unhinted }' })).cacheControl).toBe('no-store');
    const mutation = await post(g.url, { query: 'mutation { bump }' });
    expect(mutation.body.data).toEqual({ bump: 1 });
    expect(mutation.cacheControl).toBe('no-store');
    expect((await get(g.url, { query: '{ __schema { queryType { name } } }' })).cacheControl).toBe('no-store');
    const failed = await get(g.url, { query: '{ counter fails }' });
    expect(failed.body.errors?.length).toBeGreaterThan(0);
    expect(failed.cacheControl).toBe('no-store');
    const invalid = await get(g.url, { query: '{ nope }' });
    expect(invalid.status).toBe(400);
    expect(invalid.body.errors?.[0].extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(invalid.cacheControl).toBe('no-store');
  });

  it('gives a persisted query (APQ) its policy, over GET once registered', async () => {
    const query = '{ models { id } }';
    const ext = { persistedQuery: { version: 1, sha256Hash: sha256(query) } };
    const unknown = await get(g.url, { extensions: ext });
    expect(unknown.body.errors?.[0].extensions?.code).toBe('PERSISTED_QUERY_NOT_FOUND');
    expect(unknown.cacheControl).toBe('no-store');
    expect((await post(g.url, { query, extensions: ext })).cacheControl).toBe('max-age=60, public');
    const again = await get(g.url, { extensions: ext });
    expect(again.body).toEqual({ data: { models: [{ id: 'm1' }] } });
    expect(again.cacheControl).toBe('max-age=60, public');
  });

  it('gives a plain POST the same header (as Apollo Server does), and no x-cache without a response cache', async () => {
    const a = await post(g.url, { query: 'query Named { me { id } }', operationName: 'Named' });
    expect(a.cacheControl).toBe('max-age=30, private');
    expect(a.xCache).toBeNull();
    // Without a response cache every request runs.
    const before = g.calls.counter ?? 0;
    await post(g.url, { query: '{ counter }' });
    await post(g.url, { query: '{ counter }' });
    expect(g.calls.counter).toBe(before + 2);
  });
});
