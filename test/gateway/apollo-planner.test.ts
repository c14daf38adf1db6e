import type { GraphQLDataSource, GraphQLDataSourceProcessOptions } from '@apollo/gateway';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execute, GraphQLError, parse, type ExecutionResult, type GraphQLSchema } from 'graphql';
import pino from 'pino';
import { NotFound } from '../../core/shared/errors';
import { readSchemaFile } from '../../edge/graphql/sdl';
import { buildSubgraph } from '../../edge/graphql/subgraph';
import { apolloPlanner, type ClientOperation, type SubscriptionPlan } from '../../gateway/apollo-planner';
import { dedupeKey } from '../../gateway/dedupe';
import { InProcessDataSource } from '../../gateway/local-source';
import { readSupergraph } from '../../gateway/supergraph';
import { sourceFiles } from '../shared/import-graph';

/**
 * What the gateway's subscriptions rely on of Apollo's internals (gateway/apollo-planner.ts), on
 * the project's own supergraph: an @apollo upgrade that changes any of it fails here first. The
 * subgraphs are in process, built from their real SDL with a few resolvers; the primary fetch's
 * events are what the chat subgraph answers to the operation the planner wrote.
 */
const log = pino({ level: 'silent' });
const planner = apolloPlanner(readSupergraph(), log);

const STREAM = `subscription Ask($input: AskInput!) { answerStream(input: $input) {
  text: response finishReason sources { citation document { title } } model { id contextLength } } }`;
const INPUT = { input: { query: 'aspirin?' } };

const TITLES: Record<string, string> = { d1: 'Aspirin', d2: 'Ibuprofen' };
const subgraph = (name: string, resolvers: Record<string, unknown>) =>
  buildSubgraph(name, readSchemaFile(`${name}/${name}.graphql`), resolvers, log).schema;
const chat = subgraph('chat', {});
const search = subgraph('search', {
  Document: {
    __resolveReference: ({ id }: { id: string }) => {
      if (!TITLES[id]) throw new NotFound(`No document ${id}`);
      return { id, title: TITLES[id] };
    },
  },
});
const models = subgraph('models', { Model: { __resolveReference: ({ id }: { id: string }) => ({ id, contextLength: 8192 }) } });

/** An in-process subgraph that keeps what each fetch asked of it. */
function recorded(schema: GraphQLSchema) {
  const source = new InProcessDataSource(schema);
  const fetches: GraphQLDataSourceProcessOptions<Record<string, unknown>>[] = [];
  return { fetches, process: (o: GraphQLDataSourceProcessOptions<Record<string, unknown>>) => (fetches.push(o), source.process(o)) };
}

/** The chat subgraph's event for a chunk: the primary fetch's operation executed on chat's own schema. */
const chatEvent = (plan: SubscriptionPlan, chunk: Record<string, unknown>) =>
  execute({
    schema: chat,
    document: parse(plan.primary.operation),
    rootValue: { answerStream: chunk },
    variableValues: INPUT,
  }) as ExecutionResult;

const CHUNK = {
  response: 'Aspirin ',
  generatedSearchText: 'aspirin',
  finishReason: null,
  sources: [
    { citation: 1, title: 'Aspirin', document: { id: 'd1' } },
    { citation: 2, title: 'Ibuprofen', document: { id: 'd2' } },
  ],
  model: { id: 'local-chat' },
};

describe('the API schema and the supergraph schema of our supergraph', () => {
  it('has the subscription root field answerStream(input: AskInput!): AnswerChunk!', () => {
    const field = planner.apiSchema.getSubscriptionType()?.getFields().answerStream;
    expect(String(field?.type)).toBe('AnswerChunk!');
    expect(field?.args.map((a) => `${a.name}: ${String(a.type)}`)).toEqual(['input: AskInput!']);
  });

  it("shows clients none of federation's internals", () => {
    const types = Object.keys(planner.apiSchema.getTypeMap());
    expect(types.filter((t) => /^(join__|link__|_Any$|_Entity$|_Service$)/.test(t))).toEqual([]);
    expect(
      planner.apiSchema
        .getDirectives()
        .map((d) => d.name)
        .filter((d) => /^(join__|link$|key$)/.test(d)),
    ).toEqual([]);
    expect(Object.keys(planner.apiSchema.getQueryType()!.getFields()).filter((f) => f.startsWith('_'))).toEqual([]);
    expect(types).toEqual(expect.arrayContaining(['Document', 'Model', 'AnswerChunk', 'Realm']));
  });

  it("keeps the join directives and the five subgraphs in the supergraph schema: the four services' and the platform's own", () => {
    const graphs = planner.supergraphSchema.getType('join__Graph');
    expect(
      graphs && 'getValues' in graphs
        ? graphs
            .getValues()
            .map((v) => v.name)
            .sort()
        : [],
    ).toEqual(['CHAT', 'MODELS', 'PLATFORM', 'SEARCH', 'TOKEN']);
    expect(planner.supergraphSchema.getDirective('join__type')).toBeDefined();
  });
});

describe('a subscription planned', () => {
  it("opens on chat, the owner of answerStream, and fetches the documents' titles from search and the model from models", () => {
    const plan = planner.planSubscription(parse(STREAM), 'Ask')!;
    expect(plan.primary.subgraph).toBe('chat');
    expect(plan.primary.variableUsages).toEqual(['input']);
    // The entities' keys are asked of chat, and the fields other subgraphs own are not.
    expect(plan.primary.operation).toMatch(/document\{__typename id\}/);
    expect(plan.primary.operation).toMatch(/model\{__typename id\}/);
    expect(plan.primary.operation).not.toMatch(/title|contextLength/);
    expect([...plan.restSubgraphs].sort()).toEqual(['models', 'search']);
  });

  it('without fields of other subgraphs, is the primary fetch alone, its variables as written', () => {
    const plan = planner.planSubscription(parse('subscription { answerStream(input: { query: "x" }) { response model { id } } }'))!;
    expect(plan.primary.subgraph).toBe('chat');
    expect(plan.primary.variableUsages).toEqual([]);
    expect(plan.restSubgraphs).toEqual([]);
  });

  it('is no plan for a query or a mutation', () => {
    expect(planner.planSubscription(parse('{ __typename }'))).toBeUndefined();
  });

  it('picks the named operation of a document holding several', () => {
    const doc = parse(`query Q { __typename } ${STREAM}`);
    expect(planner.planSubscription(doc, 'Ask')?.primary.subgraph).toBe('chat');
    expect(planner.planSubscription(doc, 'Q')).toBeUndefined();
  });
});

describe('an event run through the plan', () => {
  const plan = planner.planSubscription(parse(STREAM), 'Ask')!;
  const context = { headers: { authorization: 'Bearer caller' } };
  const operation: ClientOperation = { document: parse(STREAM), operationName: 'Ask', variables: INPUT, context };
  const setup = (sources: Partial<Record<string, GraphQLDataSource>> = {}) => {
    const s = { search: recorded(search), models: recorded(models) };
    const all = { chat: new InProcessDataSource(chat), ...s, ...sources } as Record<string, GraphQLDataSource>;
    return { ...s, run: planner.runner(plan, operation, all) };
  };

  it('merges what search and models answer into the event, shaped as the client asked (aliases, no keys it did not ask)', async () => {
    const { run, search: s, models: m } = setup();
    expect(await run(chatEvent(plan, CHUNK))).toEqual({
      data: {
        answerStream: {
          text: 'Aspirin ',
          finishReason: null,
          sources: [
            { citation: 1, document: { title: 'Aspirin' } },
            { citation: 2, document: { title: 'Ibuprofen' } },
          ],
          model: { id: 'local-chat', contextLength: 8192 },
        },
      },
    });
    // One batched _entities fetch per subgraph and event, with the caller's context, never deduplicated.
    expect(s.fetches.map((f) => f.request.variables)).toEqual([
      {
        representations: [
          { __typename: 'Document', id: 'd1' },
          { __typename: 'Document', id: 'd2' },
        ],
      },
    ]);
    expect(m.fetches.map((f) => f.request.variables)).toEqual([{ representations: [{ __typename: 'Model', id: 'local-chat' }] }]);
    for (const f of [...s.fetches, ...m.fetches]) {
      expect(f.context).toBe(context);
      expect(dedupeKey(f as never)).toBeUndefined();
    }
  });

  it('fetches nothing more for a chunk without sources or model, and each event gets its own result', async () => {
    const { run, search: s, models: m } = setup();
    const last = { ...CHUNK, response: '', finishReason: 'STOP', sources: null, model: null };
    const [first, second] = await Promise.all([run(chatEvent(plan, CHUNK)), run(chatEvent(plan, last))]);
    expect(second).toEqual({ data: { answerStream: { text: '', finishReason: 'STOP', sources: null, model: null } } });
    expect((first.data as { answerStream: { model: unknown } }).answerStream.model).toEqual({ id: 'local-chat', contextLength: 8192 });
    expect([s.fetches.length, m.fetches.length]).toEqual([1, 1]);
  });

  it("marks a subgraph's errors with its name and the path in the client's result, keeping their code", async () => {
    const { run } = setup();
    const r = await run(
      chatEvent(plan, { ...CHUNK, sources: [CHUNK.sources[0], { citation: 2, title: 'Gone', document: { id: 'gone' } }] }),
    );
    expect((r.data as { answerStream: { sources: unknown } }).answerStream.sources).toEqual([
      { citation: 1, document: { title: 'Aspirin' } },
      { citation: 2, document: null },
    ]);
    expect(r.errors?.map((e) => e.toJSON())).toEqual([
      {
        message: 'No document gone',
        path: ['answerStream', 'sources', 1, 'document'],
        extensions: { code: 'NOT_FOUND', serviceName: 'search' },
      },
    ]);
  });

  it('codes an uncoded error of a subgraph DOWNSTREAM_SERVICE_ERROR, and marks errors of the event itself with the primary subgraph', async () => {
    const { run } = setup({
      models: { process: async () => ({ data: { _entities: [null] }, errors: [{ message: 'models broke', path: ['_entities', 0] }] }) },
    });
    const event = {
      data: chatEvent(plan, CHUNK).data,
      errors: [{ message: 'partly', path: ['answerStream', 'sources'], extensions: { code: 'UPSTREAM_ERROR' } }],
    };
    const r = await run(event);
    expect((r.data as { answerStream: { model: unknown } }).answerStream.model).toBeNull();
    expect(r.errors?.map((e) => e.toJSON())).toEqual(
      expect.arrayContaining([
        { message: 'partly', path: ['answerStream', 'sources'], extensions: { code: 'UPSTREAM_ERROR', serviceName: 'chat' } },
        {
          message: 'models broke',
          path: ['answerStream', 'model'],
          extensions: { code: 'DOWNSTREAM_SERVICE_ERROR', serviceName: 'models' },
        },
      ]),
    );
    expect(r.errors).toHaveLength(2);
  });

  it("passes an error a data source throws (a remote subgraph out of reach) as it is, the subgraph's fields null", async () => {
    const down = new GraphQLError('The search subgraph is unavailable', { extensions: { code: 'UPSTREAM_ERROR', serviceName: 'search' } });
    const { run } = setup({
      search: {
        process: async () => {
          throw down;
        },
      },
    });
    const r = await run(chatEvent(plan, CHUNK));
    expect(r.errors).toEqual([down]);
    expect((r.data as { answerStream: { sources: unknown } }).answerStream.sources).toEqual([
      { citation: 1, document: null },
      { citation: 2, document: null },
    ]);
  });
});

describe('the adapter', () => {
  const ADAPTER = 'gateway/apollo-planner.ts';
  /** The adapter's one helper that replaces an export of federation-internals, and the test that reads it back through the package's index. */
  const ALSO = ['gateway/remembered-operations.ts', 'test/gateway/direct-fetch.test.ts'];
  /** What @apollo/gateway documents: the gateway and its data sources. */
  const PUBLIC_GATEWAY = new Set([
    'ApolloGateway',
    'GraphQLDataSource',
    'GraphQLDataSourceProcessOptions',
    'RemoteGraphQLDataSource',
    'LocalGraphQLDataSource',
  ]);
  const root = join(__dirname, '..', '..');
  const files = sourceFiles(root, ['core', 'clients', 'edge', 'rest', 'subgraphs', 'gateway', 'services', 'bin', 'bench', 'test']);
  const importsOf = (file: string) =>
    [
      ...readFileSync(join(root, file), 'utf8').matchAll(
        /(?:\bimport\s+(?:type\s+)?(?:\{([^}]*)\}\s*from\s*)?|\bfrom\s*|\brequire\s*\(\s*|\bimport\s*\(\s*)['"](@apollo\/[^'"]+)['"]/g,
      ),
    ].map((m) => ({
      names: (m[1] ?? '')
        .split(',')
        .map((n) => n.replace(/^\s*type\s+/, '').trim())
        .filter(Boolean),
      from: m[2],
    }));

  it("is the only file (with its helper) that reaches Apollo's internals: federation-internals, the query planner, the gateway's undocumented exports, a package's dist/", () => {
    expect(files).toContain(ADAPTER);
    const reaching = files
      .filter((f) => f !== ADAPTER && !ALSO.includes(f))
      .flatMap((file) =>
        importsOf(file).flatMap(({ names, from }) => {
          if (/^@apollo\/(federation-internals|query-planner)(\/|$)|^@apollo\/[^/]+\/(dist|src)\//.test(from)) return [`${file}: ${from}`];
          if (from === '@apollo/gateway') return names.filter((n) => !PUBLIC_GATEWAY.has(n)).map((n) => `${file}: ${n} of ${from}`);
          return [];
        }),
      );
    expect(reaching).toEqual([]);
  });
});
