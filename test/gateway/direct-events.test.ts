import type { GraphQLDataSource } from '@apollo/gateway';
import { parse } from 'graphql';
import pino from 'pino';
import { readSchemaFile } from '../../edge/graphql/sdl';
import { buildSubgraph } from '../../edge/graphql/subgraph';
import { apolloPlanner } from '../../gateway/apollo-planner';
import { InProcessDataSource } from '../../gateway/local-source';
import { readSupergraph } from '../../gateway/supergraph';

/**
 * A subscription whose plan is its primary fetch alone, on a subgraph in this process, selecting
 * exactly what the client selects, hands each event on as it comes (gateway/direct-fetch.ts, issue
 * 36): no executor per event. So does one whose plan fetches entities after each event, for an event
 * with nothing (null, []) where the fetch's selection and the client's differ. The answer must equal
 * the executor's; an event with errors, or with entities to fetch, still goes through the executor.
 */
const log = pino({ level: 'silent' });
const planner = apolloPlanner(readSupergraph(), log);
const chat = buildSubgraph('chat', readSchemaFile('chat/chat.graphql'), {}, log).schema;
const models = buildSubgraph(
  'models',
  readSchemaFile('models/models.graphql'),
  { Model: { __resolveReference: (m: { id: string }) => ({ id: m.id, group: 'A', kind: 'CHAT', contextLength: 8192 }) } },
  log,
).schema;

const TITLES: Record<string, string> = { d1: 'Aspirin', d2: 'Ibuprofen' };
const search = buildSubgraph(
  'search',
  readSchemaFile('search/search.graphql'),
  { Document: { __resolveReference: ({ id }: { id: string }) => ({ id, title: TITLES[id] }) } },
  log,
).schema;

const inProcess = (): Record<string, GraphQLDataSource> => ({
  chat: new InProcessDataSource(chat),
  models: new InProcessDataSource(models),
  search: new InProcessDataSource(search),
});
/** The same subgraphs as plain data sources: every event goes through the executor. */
const plain = (): Record<string, GraphQLDataSource> => {
  const sources = inProcess();
  return Object.fromEntries(Object.entries(sources).map(([name, s]) => [name, { process: (o) => s.process(o) } as GraphQLDataSource]));
};

const runnerOf = (query: string, sources: Record<string, GraphQLDataSource>, variables: Record<string, unknown> = {}) => {
  const document = parse(query);
  const plan = planner.planSubscription(document);
  if (!plan) throw new Error(`not a subscription: ${query}`);
  return { plan, run: planner.runner(plan, { document, variables, context: {} }, sources) };
};

const chunk = (over: Record<string, unknown> = {}) => ({
  response: 'Glaciers ',
  answerSoFar: 'Glaciers ',
  generatedSearchText: 'why do glaciers retreat',
  finishReason: null,
  sources: null,
  model: null,
  ...over,
});

describe('the events of a subscription planned as its primary fetch alone', () => {
  // [what, the client's document, the event's data, variables] (every row whole: jest-each takes a shorter one's last parameter for `done`).
  const cases: [string, string, Record<string, unknown>, Record<string, unknown>][] = [
    [
      'plain fields',
      'subscription { answerStream(input: { query: "q" }) { response finishReason } }',
      { answerStream: { response: 'A', finishReason: null } },
      {},
    ],
    [
      'aliases, __typename and a variable',
      'subscription S($input: AskInput!) { a: answerStream(input: $input) { __typename text: answerSoFar finishReason } }',
      { a: { __typename: 'AnswerChunk', text: 'A b', finishReason: 'STOP' } },
      { input: { query: 'q' } },
    ],
    [
      "an entity's key only",
      'subscription { answerStream(input: { query: "q" }) { response model { id } } }',
      { answerStream: { response: '', model: { id: 'local-chat' } } },
      {},
    ],
  ];

  it.each(cases)('hands on %s as the executor would shape them, the event itself', async (_, query, data, variables) => {
    const event = { data };
    const direct = runnerOf(query, inProcess(), variables);
    expect(direct.plan.restSubgraphs).toEqual([]);
    const mine = await direct.run(event);
    const theirs = await runnerOf(query, plain(), variables).run(JSON.parse(JSON.stringify(event)) as typeof event);
    expect(JSON.stringify(mine)).toBe(JSON.stringify(theirs));
    expect(mine.data).toBe(event.data);
  });

  it('sends an event with errors through the executor, which marks them as before', async () => {
    const query = 'subscription { answerStream(input: { query: "q" }) { response } }';
    const event = { data: null, errors: [{ message: 'The model failed', path: ['answerStream'], extensions: { code: 'UPSTREAM_ERROR' } }] };
    const mine = await runnerOf(query, inProcess()).run(event);
    const theirs = await runnerOf(query, plain()).run(JSON.parse(JSON.stringify(event)) as typeof event);
    expect(mine).toEqual(theirs);
    expect(mine.errors?.[0].message).toBe('The model failed');
  });

  it('runs the executor when the plan fetches entities after each event, or the client selects otherwise', async () => {
    // The model's contextLength comes from the models subgraph after each event.
    const withRest = runnerOf('subscription { answerStream(input: { query: "q" }) { response model { id contextLength } } }', inProcess());
    expect(withRest.plan.restSubgraphs).toEqual(['models']);
    const event = { data: { answerStream: { response: '', model: { __typename: 'Model', id: 'm1' } } } };
    const result = await withRest.run(event);
    expect(result.data).toEqual({ answerStream: { response: '', model: { id: 'm1', contextLength: 8192 } } });
    expect(result.data).not.toBe(event.data);
    // A directive on a selection decides per request what is selected: the executor's to shape.
    const skipped = runnerOf('subscription { answerStream(input: { query: "q" }) { response finishReason @skip(if: true) } }', inProcess());
    const chunked = { data: { answerStream: chunk({ response: 'x' }) } };
    const shaped = await skipped.run(chunked);
    expect(shaped.data).not.toBe(chunked.data);
    // The root's __typename is the gateway's own, not the subgraph's.
    const typed = runnerOf('subscription { __typename answerStream(input: { query: "q" }) { response } }', inProcess());
    const typedEvent = { data: { answerStream: { response: 'A' } } };
    expect(await typed.run(typedEvent)).toEqual({ data: { __typename: 'Subscription', answerStream: { response: 'A' } } });
  });

  it('runs the executor for a subgraph that is not in this process', async () => {
    const query = 'subscription { answerStream(input: { query: "q" }) { response } }';
    const event = { data: { answerStream: { response: 'A' } } };
    const result = await runnerOf(query, plain()).run(event);
    expect(result).toEqual({ data: { answerStream: { response: 'A' } } });
    expect(result.data).not.toBe(event.data);
  });
});

describe('the events of a subscription with entities fetched after each', () => {
  // The bench's fan-out: the first piece carries the sources and the model, the later ones null.
  const ASK = `subscription { answerStream(input: { query: "q" }) {
    response finishReason sources { citation document { title } } model { id contextLength } } }`;
  const executor = (event: { data: Record<string, unknown> }) =>
    runnerOf(ASK, plain()).run(JSON.parse(JSON.stringify(event)) as typeof event);

  it('hands on an event with nothing where the fetch selects otherwise (null, an empty list), as the executor would shape it', async () => {
    const { plan, run } = runnerOf(ASK, inProcess());
    expect([...plan.restSubgraphs].sort()).toEqual(['models', 'search']);
    for (const event of [
      { data: { answerStream: { response: 'Glaciers ', finishReason: null, sources: null, model: null } } },
      { data: { answerStream: { response: '', finishReason: 'STOP', sources: [], model: null } } },
    ]) {
      const mine = await run(event);
      expect(JSON.stringify(mine)).toBe(JSON.stringify(await executor(event)));
      expect(mine.data).toBe(event.data);
    }
  });

  it('runs the executor for an event with something there: entities to fetch, or a field to shape', async () => {
    const { run } = runnerOf(ASK, inProcess());
    const first = {
      data: {
        answerStream: {
          response: 'A',
          finishReason: null,
          sources: [
            { citation: 1, document: { __typename: 'Document', id: 'd1' } },
            { citation: 2, document: { __typename: 'Document', id: 'd2' } },
          ],
          model: { __typename: 'Model', id: 'm1' },
        },
      },
    };
    const mine = await run(first);
    expect(mine.data).not.toBe(first.data);
    expect(mine).toEqual({
      data: {
        answerStream: {
          response: 'A',
          finishReason: null,
          sources: [
            { citation: 1, document: { title: 'Aspirin' } },
            { citation: 2, document: { title: 'Ibuprofen' } },
          ],
          model: { id: 'm1', contextLength: 8192 },
        },
      },
    });
    expect(JSON.stringify(mine)).toBe(JSON.stringify(await executor(first)));
    // Sources null, the model not: its contextLength is fetched.
    const modelOnly = {
      data: { answerStream: { response: 'b', finishReason: null, sources: null, model: { __typename: 'Model', id: 'm1' } } },
    };
    const shaped = await run(modelOnly);
    expect(shaped.data).not.toBe(modelOnly.data);
    expect(shaped).toEqual({
      data: { answerStream: { response: 'b', finishReason: null, sources: null, model: { id: 'm1', contextLength: 8192 } } },
    });
  });

  it('runs the executor when the subgraph is not in this process', async () => {
    const event = { data: { answerStream: { response: 'x', finishReason: null, sources: null, model: null } } };
    const result = await runnerOf(ASK, plain()).run(event);
    expect(result).toEqual(event);
    expect(result.data).not.toBe(event.data);
  });
});
