import type { GraphQLDataSourceProcessOptions } from '@apollo/gateway';
import { parse, print, type GraphQLSchema } from 'graphql';
import pino from 'pino';
import { NotFound } from '../../core/shared/errors';
import type { GraphContext } from '../../edge/graphql/context';
import { readSchemaFile } from '../../edge/graphql/sdl';
import { buildSubgraph } from '../../edge/graphql/subgraph';
import { apolloPlanner } from '../../gateway/apollo-planner';
import { deferredOperations } from '../../gateway/defer/deferred';
import { labelDefers, partDocument, PLACEHOLDER, withoutStreams } from '../../gateway/defer/document';
import type { Payload } from '../../gateway/defer/payloads';
import { InProcessDataSource } from '../../gateway/local-source';
import { readSupergraph } from '../../gateway/supergraph';
import { mergeParts, type Part } from './defer-parts';

/**
 * The core of `@defer` at the gateway (gateway/defer/), on the project's supergraph with in-process
 * subgraphs built from their real SDL: what it relies on of Apollo's planner with defer on (a Defer
 * node whose deferred nodes carry our labels, nested ones inside), the documents each part is
 * shaped by, and the parts themselves: one item per list element, each subgraph fetched once however
 * many parts replay its answer, an entity's error in the item of its element.
 */
const log = pino({ level: 'silent' });
const planner = apolloPlanner(readSupergraph(), log);

const TITLES: Record<string, string> = { d1: 'Aspirin', d2: 'Ibuprofen' };
const subgraph = (name: string, resolvers: Record<string, unknown>) =>
  buildSubgraph(name, readSchemaFile(`${name}/${name}.graphql`), resolvers, log).schema;
const citation = (n: number, id: string) => ({ citation: n, title: `T${n}`, document: { id }, category: 'SEARCH', score: 1, text: '' });
let cited = ['d1', 'd2'];
const chat = subgraph('chat', {
  Query: { sources: () => ({ query: 'q', searchText: 'q', citations: cited.map((id, i) => citation(i + 1, id)), model: { id: 'm1' } }) },
});
const search = subgraph('search', {
  Document: {
    __resolveReference: ({ id }: { id: string }) => {
      if (!TITLES[id]) throw new NotFound(`No document ${id}`);
      return { id, title: TITLES[id], chunkCount: 3 };
    },
  },
});
const models = subgraph('models', { Model: { __resolveReference: ({ id }: { id: string }) => ({ id, contextLength: 8192 }) } });

function counted(schema: GraphQLSchema) {
  const source = new InProcessDataSource(schema);
  const fetches: string[] = [];
  return {
    fetches,
    process: (o: GraphQLDataSourceProcessOptions<Record<string, unknown>>) => (fetches.push(o.request.query!), source.process(o)),
  };
}

const DEFERRED = `query Q($input: AskInput!) { sources(input: $input) { query
  citations { citation document { id ... @defer(label: "doc") { title chunkCount } } }
  ...Later @defer } }
fragment Later on Sources { model { id contextLength } }`;
const INPUT = { input: { query: 'q' } };
const context = (): GraphContext => ({ headers: {}, callers: new Map(), memo: new Map() });

describe('the documents of a deferred operation', () => {
  it('labels each active @defer, spreads inlined, `if: false` dropped, the client labels kept', () => {
    const doc = parse(`query($later: Boolean!) { sources(input: {query: "q"}) {
      citations { document { id ... @defer(label: "mine") { title } ... @defer(if: $later) { chunkCount } } } ...M @defer } }
      fragment M on Sources { model { id } }`);
    const labelled = labelDefers(doc, undefined, { later: false })!;
    expect([...labelled.fragments.values()].map((f) => [f.label, f.clientLabel, f.path.join('.')])).toEqual([
      ['d0', 'mine', 'sources.citations.document'],
      ['d1', undefined, 'sources'],
    ]);
    expect(print(labelled.document)).toContain('... @defer(label: "d0") {\n          title');
    expect(print(labelled.document)).toContain('... {\n          chunkCount');
    expect(print(labelled.document)).toContain('... on Sources @defer(label: "d1") {\n      model');
    expect(labelDefers(parse('{ sources(input: {query: "q"}) { query } }'), undefined, {})).toBeUndefined();
    // The initial part: deferred fragments out, an emptied selection set standing on the placeholder.
    const initial = print(
      partDocument(labelDefers(parse('{ sources(input: {query: "q"}) { ... @defer { query } } }'), undefined, {})!, new Set()),
    );
    expect(initial).toContain(`sources(input: {query: "q"}) {\n    ${PLACEHOLDER}: __typename`);
  });

  it('plans a Defer node whose parts carry our labels, a nested part after its parent', () => {
    const nested = labelDefers(
      parse(`{ sources(input: {query: "q"}) { query ... @defer { citations { document { id ... @defer { title } } } } } }`),
      undefined,
      {},
    )!;
    const plan = planner.planDefer(nested.document)!;
    expect(plan.deferred.map((p) => [p.label, p.nested.map((n) => n.label)])).toEqual([['d0', ['d1']]]);
    // The nested part runs its parents' steps first: chat's fetch, then search's.
    expect(plan.deferred[0].nested[0].steps.nodes.map((n) => n.kind)).toEqual(['Fetch', 'Flatten']);
  });
});

describe('a subscription', () => {
  it('plans its @defer inline and, its @stream taken out, its lists whole (its events come whole)', () => {
    const plan = planner.planSubscription(
      parse('subscription { answerStream(input: { query: "q" }) { response ... @defer { model { id contextLength } } } }'),
    );
    expect(plan?.primary.subgraph).toBe('chat');
    expect(plan?.restSubgraphs).toEqual(['models']);
    const streamless = withoutStreams(
      parse('subscription { answerStream(input: { query: "q" }) { sources @stream(initialCount: 1) { title } } }'),
    );
    expect(planner.planSubscription(streamless)?.primary.subgraph).toBe('chat');
  });
});

describe('the parts', () => {
  const sources = { chat: counted(chat), search: counted(search), models: counted(models) };
  const deferred = deferredOperations({ planner, dataSources: sources, log });
  const run = async (query: string) => {
    const operation = deferred.prepare(parse(query), 'Q', INPUT)!;
    const outcome = await deferred.execute({ operation, variables: INPUT, context: context(), incremental: true });
    const parts: Payload[] = [];
    for await (const p of outcome as AsyncIterable<Payload>) parts.push(p);
    return parts as Part[];
  };
  beforeEach(() => {
    cited = ['d1', 'd2'];
    for (const s of Object.values(sources)) s.fetches.length = 0;
  });

  it('come as the initial part, then an item per list element and one for the model; each subgraph fetched once', async () => {
    const parts = await run(DEFERRED);
    expect(parts[0]).toEqual({
      data: {
        sources: {
          query: 'q',
          citations: [
            { citation: 1, document: { id: 'd1' } },
            { citation: 2, document: { id: 'd2' } },
          ],
        },
      },
      hasNext: true,
    });
    const items = parts.slice(1).flatMap((p) => p.incremental ?? []);
    expect(items).toEqual(
      expect.arrayContaining([
        { data: { title: 'Aspirin', chunkCount: 3 }, path: ['sources', 'citations', 0, 'document'], label: 'doc' },
        { data: { title: 'Ibuprofen', chunkCount: 3 }, path: ['sources', 'citations', 1, 'document'], label: 'doc' },
        { data: { model: { id: 'm1', contextLength: 8192 } }, path: ['sources'] },
      ]),
    );
    expect(items).toHaveLength(3);
    expect(parts.at(-1)!.hasNext).toBe(false);
    expect([sources.chat.fetches.length, sources.search.fetches.length, sources.models.fetches.length]).toEqual([1, 1, 1]);
    // A client that takes no parts: one result, the same as the parts merged.
    const whole = await deferred.execute({
      operation: deferred.prepare(parse(DEFERRED), 'Q', INPUT)!,
      variables: INPUT,
      context: context(),
      incremental: false,
    });
    expect(mergeParts(parts)).toEqual(whole);
  });

  it("put an entity's error in the item of its element: that document null, the others whole", async () => {
    cited = ['d1', 'gone'];
    const parts = await run(DEFERRED);
    const items = parts.slice(1).flatMap((p) => p.incremental ?? []);
    expect(items.find((i) => i.path[2] === 0)).toEqual({
      data: { title: 'Aspirin', chunkCount: 3 },
      path: ['sources', 'citations', 0, 'document'],
      label: 'doc',
    });
    const failed = items.find((i) => i.path[2] === 1)!;
    // Its title is non-null: the error nulls the document (nullable), which the item says with `data: null`.
    expect(failed.data).toBeNull();
    expect(failed.errors).toEqual([
      expect.objectContaining({ message: 'No document gone', extensions: expect.objectContaining({ code: 'NOT_FOUND' }) }),
    ]);
    expect(parts[0].errors).toBeUndefined();
  });

  it('stream a list: its first items, then the rest as `items`, then the deferred items that point into it', async () => {
    const parts = await run(`query Q($input: AskInput!) { sources(input: $input) {
      citations @stream(initialCount: 1, label: "more") { citation document { id ... @defer { title } } } } }`);
    expect(parts[0]).toEqual({ data: { sources: { citations: [{ citation: 1, document: { id: 'd1' } }] } }, hasNext: true });
    expect(parts[1]).toEqual({
      incremental: [{ items: [{ citation: 2, document: { id: 'd2' } }], path: ['sources', 'citations', 1], label: 'more' }],
      hasNext: true,
    });
    expect(parts.slice(2).flatMap((p) => p.incremental ?? [])).toEqual([
      { data: { title: 'Aspirin' }, path: ['sources', 'citations', 0, 'document'] },
      { data: { title: 'Ibuprofen' }, path: ['sources', 'citations', 1, 'document'] },
    ]);
    expect(mergeParts(parts).data).toEqual({
      sources: {
        citations: [
          { citation: 1, document: { id: 'd1', title: 'Aspirin' } },
          { citation: 2, document: { id: 'd2', title: 'Ibuprofen' } },
        ],
      },
    });
  });
});
