import pino from 'pino';
import { configParts } from '../../../bin/deps';
import { startPlatform } from '../../../bin/start';
import { loadConfig } from '../../../core/shared/config';
import { testModules } from '../../shared/helpers';
import { addOwls } from '../../rest/search/owls';
import { searchFixture, type SearchFixture } from './fixture';
import { freePort } from '../shared/server';

/**
 * The search subgraph through the gateway's /graphql (in process), and served alone for entity fetches.
 *
 * Started platform: what is tested is the federated graph (the gateway's query plans, its operation
 * limits, `platform serve search` answering entity fetches), which only the started platform has;
 * search's REST behaviour is tested in process in test/rest/search.
 */
describe('search through GraphQL', () => {
  let f: SearchFixture;
  const ids: string[] = [];
  beforeAll(async () => {
    f = await searchFixture();
    for (const [title, content, tags] of [
      ['Volcanoes', 'Lava flows from volcanoes in Iceland.', ['geology']],
      ['Geysers', 'Geysers in Iceland erupt with hot water.', ['geology', 'water']],
      ['Tea', 'Green tea is brewed with hot water.', ['food']],
    ] as const) {
      ids.push((await f.call('POST', '/cl/search/api/v2/objects', { body: { title, content, tags } })).body.object_id);
    }
    ids.push(
      (await f.call('POST', '/cl/search/api/v2/objects', { auth: f.b, body: { title: 'B volcano', content: 'Volcanoes of tenant B.' } }))
        .body.object_id,
    );
  }, 60_000);
  afterAll(() => f.stop());

  const gql = async (query: string, variables: Record<string, unknown> = {}, auth = f.a, base = f.url) => {
    const res = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: auth },
      body: JSON.stringify({ query, variables }),
    });
    return { status: res.status, body: (await res.json()) as any };
  };

  it('search: hits with documents, total count, paging and aggregations over the whole match set', async () => {
    const r = await gql(`{ search(query: "iceland hot water", mode: FULLTEXT, pageSize: 1) {
      totalCount pageNo pageSize hits { score snippet document { id title tags createdAt isPrivate } } aggregations { tags { key docCount } } } }`);
    expect(r.body.errors).toBeUndefined();
    const s = r.body.data.search;
    expect(s).toMatchObject({ totalCount: 3, pageNo: 1, pageSize: 1 });
    expect(s.hits).toHaveLength(1);
    expect(s.hits[0].document).toMatchObject({ id: ids[1], title: 'Geysers', isPrivate: false });
    expect(s.aggregations.tags).toEqual([
      { key: 'geology', docCount: 2 },
      { key: 'food', docCount: 1 },
      { key: 'water', docCount: 1 },
    ]);
  });

  it('every mode and filter; validation as REST does it (BAD_USER_INPUT naming the argument)', async () => {
    for (const mode of ['SEMANTIC', 'HYBRID', 'BASIC']) {
      const r = await gql(
        'query($m: SearchMode!) { search(query: "volcanoes", mode: $m, anywhere: true, filter: { tags: ["geology"] }) { hits { document { title } } } }',
        { m: mode },
      );
      expect(r.body.data.search.hits[0].document.title).toBe('Volcanoes');
    }
    const small = await gql('{ search(query: "x", mode: HYBRID, pageSize: 5) { totalCount } }');
    expect(small.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
    expect(small.body.errors[0].message).toContain('pageSize');
    const badFilter = await gql(
      '{ search(query: "x", filter: { kvp: { a: { b: { c: { d: { e: { f: { g: { h: { i: 1 } } } } } } } } } }) { totalCount } }',
    );
    expect(badFilter.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(badFilter.body.errors[0].message).toContain('filter.kvp');
  });

  it('passages resolve their documents; document(id) is null for another tenant', async () => {
    const r = await gql(
      `query($id: ID!, $other: ID!) { passages(query: "tea", pageSize: 2) { totalCount passages { text score document { title } } }
      mine: document(id: $id) { title } theirs: document(id: $other) { title } }`,
      { id: ids[2], other: ids[3] },
    );
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.passages.passages[0]).toMatchObject({ text: 'Green tea is brewed with hot water.', document: { title: 'Tea' } });
    expect(r.body.data.mine).toEqual({ title: 'Tea' });
    expect(r.body.data.theirs).toBeNull();
  });

  it('mutations: add a document and delete it; roles and tokens are checked as on REST', async () => {
    const added = await gql(
      'mutation { addDocument(input: { content: "Fjords were carved by glaciers.", title: "Fjords", tags: ["geology"], isPrivate: true }) { id title isPrivate createdBy } }',
    );
    expect(added.body.errors).toBeUndefined();
    const id = added.body.data.addDocument.id as string;
    expect(added.body.data.addDocument).toMatchObject({ title: 'Fjords', isPrivate: true });
    expect((await gql('{ search(query: "fjords", mode: FULLTEXT) { totalCount } }')).body.data.search.totalCount).toBe(1);
    expect((await gql('{ search(query: "fjords", mode: FULLTEXT) { totalCount } }', {}, f.aOther)).body.data.search.totalCount).toBe(0);
    const ro = await gql('mutation($id: ID!) { deleteDocument(id: $id) }', { id }, f.readOnly);
    expect(ro.body.errors[0].extensions.code).toBe('FORBIDDEN');
    const other = await gql('mutation($id: ID!) { deleteDocument(id: $id) }', { id }, f.b);
    expect(other.body.errors[0].extensions.code).toBe('NOT_FOUND');
    expect((await gql('mutation($id: ID!) { deleteDocument(id: $id) }', { id })).body.data).toEqual({ deleteDocument: true });
    expect((await gql('{ search(query: "fjords", mode: FULLTEXT) { totalCount } }')).body.data.search.totalCount).toBe(0);
    const blank = await gql('mutation { addDocument(input: { content: " " }) { id } }');
    expect(blank.body.errors[0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT' } });
    const anon = await gql('{ search(query: "tea") { totalCount } }', {}, '');
    expect(anon.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });

  it('a hostile document (40 aliased searches, 6,000 tokens) is refused before any search runs', async () => {
    const aliases = Array.from({ length: 40 }, (_, i) => `s${i}: search(query: "water", pageSize: 100) { totalCount }`).join(' ');
    const many = await gql(`{ ${aliases} }`);
    expect(many.status).toBe(400);
    expect(many.body.errors[0].extensions.code).toBe('TOO_MANY_ALIASES');
    const huge = await gql(`{ search(query: "water") { hits { document { ${'id title '.repeat(3000)}} } } }`);
    expect(huge.status).toBe(400);
    expect(huge.body.errors[0].extensions.code).toBe('QUERY_TOO_LARGE');
  });

  it('Document entities: other subgraphs fetch them by id, several in one batched call, null where not visible', async () => {
    const query = 'query($r: [_Any!]!) { _entities(representations: $r) { ... on Document { id title } } }';
    const representations = [ids[0], ids[3], ids[2], 'no-such-id'].map((id) => ({ __typename: 'Document', id }));
    const alone = await startSearchAlone();
    try {
      const r = await gql(query, { r: representations }, f.a, alone.url);
      expect(r.body.data._entities).toEqual([{ id: ids[0], title: 'Volcanoes' }, null, { id: ids[2], title: 'Tea' }, null]);
    } finally {
      await alone.stop();
    }
  });

  // From custom-metadata.test.ts (test/rest/search), whose REST cases run in process: its GraphQL
  // case goes through the gateway, over the same owl objects.
  describe("custom_metadata: tags, kvp and taxonomy are the object's own", () => {
    let owls: Record<'inner' | 'top' | 'other' | 'upload', string>;
    beforeAll(async () => {
      owls = await addOwls(f.call);
    }, 60_000);

    it('GraphQL: the filter, chunk search and Document.customMetadata alike', async () => {
      const gql = async (query: string) =>
        (await (
          await fetch(`${f.url}/graphql`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: f.a },
            body: JSON.stringify({ query }),
          })
        ).json()) as any;
      const s = await gql(
        '{ search(query: "owls", mode: FULLTEXT, filter: { customMetadata: { tags: ["x"] } }) { hits { document { id customMetadata } } } }',
      );
      expect(s.errors).toBeUndefined();
      expect(s.data.search.hits.map((h: any) => h.document.id).sort()).toEqual([owls.inner, owls.top].sort());
      expect(s.data.search.hits.find((h: any) => h.document.id === owls.inner).document.customMetadata).toMatchObject({
        team: 'owl',
        tags: ['x'],
      });
      const p = await gql('{ passages(query: "owls", customMetadata: { tags: ["x"] }) { passages { document { id } } } }');
      expect([...new Set(p.data.passages.passages.map((x: any) => x.document.id))].sort()).toEqual([owls.inner, owls.top].sort());
      const added = await gql(
        'mutation { addDocument(input: { content: "Eagle owls are the largest owls.", customMetadata: { tags: ["g"] } }) { id tags customMetadata } }',
      );
      expect(added.data.addDocument).toMatchObject({ tags: ['g'], customMetadata: { tags: ['g'] } });
    });
  });

  /** `platform serve search` against the same data dir, trusting the fixture's token service. */
  async function startSearchAlone() {
    const modules = testModules();
    const config = loadConfig(
      { PORT: String(await freePort()), PLATFORM_DATA_DIR: f.platform.dataDir, AUTH_ISSUER_URL: f.url, LOG_LEVEL: 'silent' },
      configParts(modules),
    );
    const running = await startPlatform(config, { role: 'search', modules, log: pino({ level: 'silent' }) });
    return { url: running.url, stop: () => running.close() };
  }
});
