import { chatFixture, type ChatFixture } from '../e2e/chat/fixture';
import { socketClient } from '../e2e/shared/subscription-wire';
import { mergeParts, type Part } from './defer-parts';

/**
 * What `@defer` parts carry beyond the clients' round trip (defer-clients.test.ts), over real HTTP on
 * the platform: a subgraph's error in a deferred part arrives in that part's `errors` (the initial
 * part clean), nested fragments come after their parent, `if: false` is inline, a mutation's fetch is
 * sent once however many parts replay it, and the operation limits (GRAPHQL_MAX_DEFERS among them)
 * refuse an operation before any part runs, over HTTP and graphql-ws.
 */
let f: ChatFixture;
beforeAll(async () => {
  f = await chatFixture();
}, 90_000);
afterAll(async () => f?.stop());

const VARIABLES = { input: { query: 'What are the side effects of aspirin?' } };
const user = () => ({ authorization: f.a, 'api-key': f.apiKey });

/** POSTs an operation for multipart parts; the parts read from the response (or its JSON answer as one part). */
async function parts(query: string, variables: Record<string, unknown> = VARIABLES): Promise<{ status: number; parts: Part[] }> {
  const res = await fetch(`${f.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'multipart/mixed;deferSpec=20220824, application/json', ...user() },
    body: JSON.stringify({ query, variables }),
  });
  const text = await res.text();
  if (!res.headers.get('content-type')?.startsWith('multipart/mixed')) return { status: res.status, parts: [JSON.parse(text)] };
  const read = text
    .slice(0, -'\r\n-----\r\n'.length)
    .split('\r\n---\r\n')
    .slice(1)
    .map((p) => JSON.parse(p.slice(p.indexOf('\r\n\r\n') + 4)) as Part);
  return { status: res.status, parts: read };
}

it("a subgraph's error in a deferred part arrives in that part's errors, the initial part clean", async () => {
  const { parts: got } = await parts(`query($input: AskInput!) {
    sources(input: $input) { citations { document { id ... @defer(label: "pages") { title passages(first: 0) { total } } } } }
  }`);
  expect(got[0].errors).toBeUndefined();
  expect(got[0].hasNext).toBe(true);
  const [item] = got.slice(1).flatMap((p) => p.incremental ?? []);
  expect(item).toMatchObject({ path: ['sources', 'citations', 0, 'document'], label: 'pages' });
  expect(item.errors).toEqual([
    expect.objectContaining({
      path: ['sources', 'citations', 0, 'document', 'passages'],
      extensions: expect.objectContaining({ code: 'BAD_USER_INPUT', serviceName: 'search' }),
    }),
  ]);
  expect(JSON.stringify(got)).not.toMatch(/stack|at .*\.ts/);
});

it('sends a nested fragment after its parent, the whole as without @defer', async () => {
  const plain = `query($input: AskInput!) { sources(input: $input) { query citations { title document { id title } } } }`;
  const whole = (await parts(plain)).parts[0];
  const { parts: got } = await parts(`query($input: AskInput!) {
    sources(input: $input) { query ... @defer(label: "outer") { citations { title document { id ... @defer(label: "inner") { title } } } } }
  }`);
  expect(got[0].data).toEqual({ sources: { query: VARIABLES.input.query } });
  const labels = got.flatMap((p) => p.incremental ?? []).map((i) => i.label);
  expect(labels).toEqual(['outer', ...whole.data.sources.citations.map(() => 'inner')]);
  expect(mergeParts(got)).toEqual(whole);
});

it('streams a list (@stream): its first items in the initial part, the rest as `items`, the whole as without it', async () => {
  const plain = (await parts('{ models { id kind } }', {})).parts[0];
  expect(plain.data.models.length).toBeGreaterThan(0);
  const { parts: got } = await parts('{ models @stream(initialCount: 0, label: "all") { id kind } }', {});
  expect(got[0]).toEqual({ data: { models: [] }, hasNext: true });
  expect(got[1]).toEqual({ incremental: [{ items: plain.data.models, path: ['models', 0], label: 'all' }], hasNext: false });
  expect(mergeParts(got)).toEqual(plain);
});

it('delivers a fragment whose `if` is false inline, in one result', async () => {
  const query = `query($input: AskInput!, $later: Boolean!) {
    sources(input: $input) { citations { document { id ... @defer(if: $later) { title } } } }
  }`;
  const { parts: got } = await parts(query, { ...VARIABLES, later: false });
  expect(got).toHaveLength(1);
  expect(got[0].data.sources.citations[0].document).toEqual({ id: expect.any(String), title: 'Aspirin' });
  const deferred = await parts(query, { ...VARIABLES, later: true });
  expect(deferred.parts.length).toBeGreaterThan(1);
});

it("runs a mutation's fetch once: its deferred part replays it", async () => {
  const word = `zebrafinch${Date.now().toString(36)}`;
  const { parts: got } = await parts(
    `mutation($input: DocumentInput!) { addDocument(input: $input) { id ... @defer { title chunkCount } } }`,
    { input: { title: word, content: `The ${word} sings at dawn.` } },
  );
  expect(got.length).toBeGreaterThan(1);
  const merged = mergeParts(got);
  expect(merged.errors).toBeUndefined();
  expect(merged.data.addDocument).toEqual({ id: expect.any(String), title: word, chunkCount: 1 });
  const found = (await parts(`{ search(query: "${word}", mode: FULLTEXT) { totalCount } }`, {})).parts[0];
  expect(found.data.search.totalCount).toBe(1);
});

describe('the operation limits, before any part runs', () => {
  const many = (n: number) =>
    `query($input: AskInput!) { sources(input: $input) { query ${Array.from({ length: n }, () => '... @defer { query }').join(' ')} } }`;

  it('refuses more @defer than GRAPHQL_MAX_DEFERS (10) with TOO_MANY_DEFERS, over HTTP and graphql-ws', async () => {
    expect((await parts(many(10))).parts.length).toBeGreaterThan(1);
    const refused = await parts(many(11));
    expect(refused.status).toBe(400);
    expect(refused.parts[0].errors).toEqual([
      { message: 'The operation defers 11 parts (@defer, @stream); the limit is 10', extensions: { code: 'TOO_MANY_DEFERS' } },
    ]);
    const ws = socketClient(f.url, user());
    try {
      await expect(ws.iterate({ query: many(11), variables: VARIABLES }).next()).rejects.toEqual([
        expect.objectContaining({ extensions: { code: 'TOO_MANY_DEFERS' } }),
      ]);
    } finally {
      await ws.dispose();
    }
  });

  it('counts the fields of deferred fragments as its own (depth)', async () => {
    const deep = `query($input: AskInput!) { sources(input: $input) { ... @defer { citations { document { ... @defer {
      passages { items { document { passages { items { document { passages { items { document { title } } } } } } } } } } } } } } }`;
    const refused = await parts(deep);
    expect(refused.status).toBe(400);
    expect(refused.parts[0].errors).toEqual([expect.objectContaining({ extensions: { code: 'QUERY_TOO_DEEP' } })]);
  });
});

describe('refusals, as for any operation', () => {
  const get = (query: string, headers: Record<string, string> = {}) =>
    fetch(`${f.url}/graphql?query=${encodeURIComponent(query)}`, {
      headers: { accept: 'multipart/mixed;deferSpec=20220824', ...user(), ...headers },
    });

  it('the CSRF rule (a GET needs the preflight header), no mutation from a GET, validation against the schema', async () => {
    const query = '{ sources(input: { query: "q" }) { query ... @defer { searchText } } }';
    const bare = await get(query);
    expect(bare.status).toBe(400);
    expect(((await bare.json()) as any).errors[0].message).toMatch(/Cross-Site Request Forgery/);
    expect((await get(query, { 'apollo-require-preflight': 'true' })).headers.get('content-type')).toMatch(/^multipart\/mixed/);
    const mutation = await get('mutation { addDocument(input: { content: "x" }) { id ... @defer { title } } }', {
      'apollo-require-preflight': 'true',
    });
    expect(mutation.status).toBe(405);
    const invalid = await parts('{ sources(input: { query: "q" }) { ... @defer { nope } } }', {});
    expect(invalid.status).toBe(400);
    expect(invalid.parts[0].errors).toEqual([expect.objectContaining({ extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } })]);
  });

  it('introspection declares @defer and @stream, so explorers and code generators accept them', async () => {
    const { parts: got } = await parts('{ __schema { directives { name locations args { name defaultValue } } } }', {});
    expect(got[0].data.__schema.directives).toContainEqual({
      name: 'defer',
      locations: ['FRAGMENT_SPREAD', 'INLINE_FRAGMENT'],
      args: [
        { name: 'label', defaultValue: null },
        { name: 'if', defaultValue: 'true' },
      ],
    });
    expect(got[0].data.__schema.directives).toContainEqual({
      name: 'stream',
      locations: ['FIELD'],
      args: [
        { name: 'label', defaultValue: null },
        { name: 'if', defaultValue: 'true' },
        { name: 'initialCount', defaultValue: '0' },
      ],
    });
  });
});
