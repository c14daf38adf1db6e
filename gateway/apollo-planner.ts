/*
 * The one file that reaches into Apollo's internals; everything else goes through its types.
 *
 * Written against @apollo/federation-internals, @apollo/query-planner and @apollo/gateway 2.14.4
 * (pinned exactly in package.json). The first's README says it may break at any time, the
 * second's that it is the gateway's implementation detail; of the third, only ApolloGateway and
 * the data sources are documented. What this file relies on (test/gateway/apollo-planner.test.ts pins it):
 * - federation-internals: `Supergraph.build(sdl)`, its `apiSchema()` and `schema`,
 *   `Schema#toGraphQLJSSchema()`, `operationFromDocument(apiSchema, document, { operationName })`;
 * - query-planner: `new QueryPlanner(supergraph).buildQueryPlan(operation)` planning a subscription
 *   as a `Subscription` node: `primary` (a Fetch on the subgraph owning the root field) and `rest`;
 * - gateway: `buildOperationContext` and `executeQueryPlan` (exported, undocumented). The latter
 *   refuses a `Subscription` node, so the primary fetch is replayed as the first node of a Sequence
 *   and answered with the event; it reads `request.variables`, `context`, `logger` and `metrics` of
 *   the request context and hands it to the data sources as `incomingRequestContext` (without an
 *   `operation`, so dedupe.ts never shares an event's fetches), marks a fetch's errors
 *   (`downstreamServiceError`) and shapes the result.
 * - query-planner with `incrementalDelivery: { enableDefer: true }`: a query with `@defer` planned as a
 *   `Defer` node (`primary.node`, `deferred[]` each with its `label` and `node`, itself a `Defer` for
 *   nested fragments), the deferred nodes' Flatten paths from the root, so each runs after the primary
 *   in a Sequence (executeQueryPlan refuses a `Defer` node: gateway/defer/ runs the parts apart);
 * - federation-internals' `operationFromDocument` replaced in its own module's exports by one that
 *   remembers the executor's calls (remembered-operations.ts), which the package's index re-exports
 *   through a getter, so @apollo/gateway's executor calls it;
 * - gateway: a plan of one root fetch of an in-process subgraph answered without the executor
 *   (direct-fetch.ts), the fetch sent as executeFetch sends it (`process` with `kind: 'incoming
 *   operation'`, the used variables, the request context, `pathInIncomingRequest: []`); likewise a
 *   subscription's events when its plan is the primary fetch alone, or when an event holds nothing
 *   where the fetch's selection and the client's differ (the entity fetches then find nothing).
 * When upgrading, run that test first, then read the CHANGELOG.md of internals-js/,
 * query-planner-js/ and gateway-js/ in github.com/apollographql/federation, and the sources the
 * packages ship: node_modules/@apollo/gateway/src/executeQueryPlan.ts (and operationContext.ts),
 * node_modules/@apollo/query-planner/src/QueryPlan.ts.
 */
import { buildOperationContext, executeQueryPlan, type GraphQLDataSource } from '@apollo/gateway';
import { operationFromDocument, Supergraph } from '@apollo/federation-internals';
import { QueryPlanner, type DeferNode, type FetchNode, type PlanNode, type QueryPlan } from '@apollo/query-planner';
import {
  extendSchema,
  OperationTypeNode,
  parse,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import type { Logger } from 'pino';
import { differsWhereNull, directFetchOf, nothingAt, type ClientSelection, type NullPaths } from './direct-fetch';
import { printed } from './printed';
import type {
  ApolloPlanner,
  DeferPlan,
  DeferredPart,
  PlanSteps,
  PrimaryFetch,
  QueryPlanned,
  SubgraphEvent,
  SubscriptionPlan,
} from './planner-types';
import { InProcessDataSource } from './local-source';
import { rememberOperations } from './remembered-operations';

export type {
  ApolloPlanner,
  ClientOperation,
  DeferPlan,
  DeferredPart,
  PrimaryFetch,
  QueryPlanned,
  RunEvent,
  PlanSteps,
  SubgraphEvent,
  SubscriptionPlan,
} from './planner-types';

/** The plan nodes of one part of a deferred operation, run in order on the same data (planner-types.ts's PlanSteps). */
class Steps implements PlanSteps {
  constructor(readonly nodes: readonly PlanNode[]) {}
}

/** `@defer` and `@stream` as the API schema declares them (graphql-js 16 has no definitions of its own; Apollo's API schema omits them). */
const INCREMENTAL_DIRECTIVES = parse(`
  directive @defer(label: String, if: Boolean! = true) on FRAGMENT_SPREAD | INLINE_FRAGMENT
  directive @stream(label: String, if: Boolean! = true, initialCount: Int = 0) on FIELD
`);

const hasDefer = (node: PlanNode | undefined): boolean =>
  !!node &&
  (node.kind === 'Defer' ||
    ((node.kind === 'Sequence' || node.kind === 'Parallel') && node.nodes.some(hasDefer)) ||
    (node.kind === 'Flatten' && hasDefer(node.node)) ||
    (node.kind === 'Condition' && (hasDefer(node.ifClause) || hasDefer(node.elseClause))));

/** The parts of a Defer node, each part's steps after `before`; undefined when a Defer sits where no part can run it. */
function partsOf(defer: DeferNode, before: readonly PlanNode[]): DeferPlan | undefined {
  if (hasDefer(defer.primary.node)) return undefined;
  const primary = defer.primary.node ? [...before, defer.primary.node] : [...before];
  const deferred: DeferredPart[] = [];
  for (const d of defer.deferred) {
    if (d.label === undefined) return undefined;
    if (d.node?.kind === 'Defer') {
      const inner = partsOf(d.node, primary);
      if (!inner) return undefined;
      deferred.push({ label: d.label, steps: inner.initial, nested: inner.deferred });
    } else {
      if (hasDefer(d.node)) return undefined;
      deferred.push({ label: d.label, steps: new Steps(d.node ? [...primary, d.node] : primary), nested: [] });
    }
  }
  return { initial: new Steps(primary), deferred };
}

/** `decide` (direct-fetch.ts) for a plan's first fetch, once per in-process subgraph schema (`memo`); false for any other source. */
function directOnce<T>(
  memo: WeakMap<GraphQLSchema, T>,
  decide: (node: FetchNode, client: ClientSelection, apiSchema: GraphQLSchema, subgraphSchema: GraphQLSchema) => T,
  node: FetchNode,
  client: ClientSelection,
  apiSchema: GraphQLSchema,
  source: GraphQLDataSource | undefined,
): T | false {
  if (!(source instanceof InProcessDataSource)) return false;
  if (!memo.has(source.schema)) memo.set(source.schema, decide(node, client, apiSchema, source.schema));
  return memo.get(source.schema)!;
}

class PlannedQuery implements QueryPlanned {
  readonly bytes: number;
  /** Whether the plan's single fetch answers the client as it comes (direct-fetch.ts), per in-process subgraph schema. */
  private readonly direct = new WeakMap<GraphQLSchema, boolean>();
  constructor(
    readonly document: DocumentNode,
    readonly operation: OperationDefinitionNode,
    readonly queryPlan: QueryPlan,
    readonly operationContext: ReturnType<typeof buildOperationContext>,
    private readonly apiSchema: GraphQLSchema,
  ) {
    this.bytes = Buffer.byteLength(JSON.stringify(queryPlan), 'utf8');
  }

  /** The plan's one fetch when its subgraph runs in this process and its answer needs no shaping. */
  directFetch(dataSources: Record<string, GraphQLDataSource>): FetchNode | undefined {
    const node = this.queryPlan.node;
    if (node?.kind !== 'Fetch') return undefined;
    return directOnce(this.direct, directFetchOf, node, this, this.apiSchema, dataSources[node.serviceName]) ? node : undefined;
  }
}

class Planned implements SubscriptionPlan {
  /** Where an event must hold nothing to be, as it comes, the client's result (direct-fetch.ts), per in-process subgraph schema. */
  private readonly direct = new WeakMap<GraphQLSchema, NullPaths | undefined>();
  constructor(
    readonly primary: PrimaryFetch,
    readonly restSubgraphs: readonly string[],
    readonly queryPlan: QueryPlan,
  ) {}

  /**
   * Which events need no executor (the subgraph in this process): those with nothing (null, []) where
   * the primary fetch selects otherwise than the client, every event when it selects the same and
   * nothing is fetched after it (the plan is per document text: one client's document answers for all).
   */
  directEvents(client: ClientSelection, apiSchema: GraphQLSchema, source: GraphQLDataSource): NullPaths | undefined {
    const node = this.queryPlan.node;
    const first = node?.kind === 'Sequence' ? node.nodes[0] : node;
    if (first?.kind !== 'Fetch') return undefined;
    const paths = directOnce(this.direct, differsWhereNull, first, client, apiSchema, source);
    // Entities fetched where the shapes agree would be fetched for something the check does not see.
    return paths && (paths.length || first === node) ? paths : undefined;
  }
}

/** The subgraphs a plan node fetches from, in order, each once. */
function subgraphsOf(node: PlanNode | undefined, into = new Set<string>()): Set<string> {
  if (!node) return into;
  switch (node.kind) {
    case 'Fetch':
      into.add(node.serviceName);
      break;
    case 'Sequence':
    case 'Parallel':
      for (const n of node.nodes) subgraphsOf(n, into);
      break;
    case 'Flatten':
      subgraphsOf(node.node, into);
      break;
    case 'Condition':
      subgraphsOf(node.ifClause, into);
      subgraphsOf(node.elseClause, into);
      break;
    case 'Defer':
      subgraphsOf(node.primary.node, into);
      for (const d of node.deferred) subgraphsOf(d.node, into);
      break;
  }
  return into;
}

/** Builds the planner of a supergraph; throws when the SDL is not a valid supergraph. */
export function apolloPlanner(supergraphSdl: string, log: Logger): ApolloPlanner {
  rememberOperations();
  const supergraph = Supergraph.build(supergraphSdl);
  const api = supergraph.apiSchema();
  const apiSchema = extendSchema(api.toGraphQLJSSchema(), INCREMENTAL_DIRECTIVES);
  const supergraphSchema = supergraph.schema.toGraphQLJSSchema();
  const planner = new QueryPlanner(supergraph, { incrementalDelivery: { enableDefer: true } });
  const requestOf = (document: DocumentNode, operationName: string | undefined, variables: Record<string, unknown>, context: unknown) => ({
    request: { query: printed(document), operationName, variables },
    context,
    logger: log,
    document,
    operationName: operationName ?? null,
    cache: undefined,
    schema: apiSchema,
    overallCachePolicy: undefined,
  });

  return {
    apiSchema,
    supergraphSchema,
    planSubscription(document, operationName) {
      // A subscription's events come whole: its `@defer`s are inline.
      const node = planner.buildQueryPlan(operationFromDocument(api, document, { operationName }).withoutDefer()).node;
      if (node?.kind !== 'Subscription') return undefined;
      const { primary: fetch, rest } = node;
      const primary = {
        subgraph: fetch.serviceName,
        operation: fetch.operation,
        operationName: fetch.operationName,
        variableUsages: fetch.variableUsages ?? [],
      };
      const first: PlanNode = { ...fetch };
      const queryPlan: QueryPlan = { kind: 'QueryPlan', node: rest ? { kind: 'Sequence', nodes: [first, rest] } : first };
      return new Planned(primary, [...subgraphsOf(rest)], queryPlan);
    },

    runner(plan, { document, operationName, variables, context }, dataSources) {
      if (!(plan instanceof Planned)) throw new TypeError('Not a plan of planSubscription');
      const { queryPlan, primary } = plan;
      const operationContext = buildOperationContext({ schema: apiSchema, operationDocument: document, operationName });
      const request = requestOf(document, operationName, variables, context);
      const real = dataSources[primary.subgraph];
      // The data sources with the primary fetch (the plan's first on its subgraph) answered by the
      // event; the executor merges the rest into the event's data in place.
      const answering = (event: SubgraphEvent): Record<string, GraphQLDataSource> => {
        let served = false;
        const own: GraphQLDataSource = {
          process: async (options) => {
            if (served) return real.process(options);
            served = true;
            return event as never;
          },
        };
        return { ...dataSources, [primary.subgraph]: own };
      };
      // An event with data and no errors is the client's result as it comes when the plan allows (direct-fetch.ts).
      const direct = plan.directEvents({ document, operation: operationContext.operation }, apiSchema, real);
      // Each event its own metrics: the executor appends to them (paths of errors) and a long
      // subscription must not accumulate them.
      return async (event) =>
        direct && event.data && !event.errors?.length && direct.every((path) => nothingAt(event.data, path))
          ? { data: event.data }
          : (executeQueryPlan(
              queryPlan,
              answering(event),
              { ...request, metrics: {} } as unknown as Parameters<typeof executeQueryPlan>[2],
              operationContext,
              supergraphSchema,
              api,
            ) as Promise<ExecutionResult>);
    },

    planDefer(document, operationName) {
      const node = planner.buildQueryPlan(operationFromDocument(api, document, { operationName })).node;
      if (node?.kind === 'Defer') return partsOf(node, []);
      if (node?.kind === 'Subscription' || hasDefer(node)) return undefined;
      return { initial: new Steps(node ? [node] : []), deferred: [] };
    },

    runSteps(steps, { document, operationName, variables, context }, dataSources) {
      const operationContext = buildOperationContext({ schema: apiSchema, operationDocument: document, operationName });
      // Only this file makes steps (Steps): their nodes are the planner's.
      const nodes = steps.nodes as readonly PlanNode[];
      const queryPlan: QueryPlan = { kind: 'QueryPlan', node: nodes.length > 1 ? { kind: 'Sequence', nodes: [...nodes] } : nodes[0] };
      return executeQueryPlan(
        queryPlan,
        dataSources,
        { ...requestOf(document, operationName, variables, context), metrics: {} } as unknown as Parameters<typeof executeQueryPlan>[2],
        operationContext,
        supergraphSchema,
        api,
      ) as Promise<ExecutionResult>;
    },

    planQuery(document, operationName) {
      const operationContext = buildOperationContext({ schema: apiSchema, operationDocument: document, operationName });
      if (operationContext.operation.operation !== OperationTypeNode.QUERY) return undefined;
      const queryPlan = planner.buildQueryPlan(operationFromDocument(api, document, { operationName }));
      return new PlannedQuery(document, operationContext.operation, queryPlan, operationContext, apiSchema);
    },

    runQuery(plan, { document, operationName, variables, context }, dataSources) {
      if (!(plan instanceof PlannedQuery)) throw new TypeError('Not a plan of planQuery');
      // The request context ApolloGateway's executor gets from Apollo Server, with what it and the
      // data sources read: the variables as sent, the context, the operation (dedupe.ts shares the
      // fetches of a query's), fresh metrics.
      const request = {
        request: { query: printed(document), operationName, variables },
        context,
        logger: log,
        document,
        operation: plan.operation,
        operationName: operationName ?? null,
        cache: undefined,
        schema: apiSchema,
        overallCachePolicy: undefined,
        metrics: {},
      };
      const run = (sources: Record<string, GraphQLDataSource>) =>
        executeQueryPlan(
          plan.queryPlan,
          sources,
          request as unknown as Parameters<typeof executeQueryPlan>[2],
          plan.operationContext,
          supergraphSchema,
          api,
        ) as Promise<ExecutionResult>;
      const direct = plan.directFetch(dataSources);
      if (!direct) return run(dataSources);
      return (async () => {
        // The fetch as the executor sends it (executeFetch): the variables it uses that were given, at the root.
        const given = Object.create(null) as Record<string, unknown>;
        for (const name of direct.variableUsages ?? [])
          if (Object.hasOwn(variables, name) && variables[name] !== undefined) given[name] = variables[name];
        const response = await dataSources[direct.serviceName].process({
          // GraphQLDataSourceRequestKind.INCOMING_OPERATION (an enum @apollo/gateway does not export).
          kind: 'incoming operation' as never,
          request: { query: direct.operation, variables: given, operationName: direct.operationName },
          incomingRequestContext: request as never,
          context: context as Record<string, unknown>,
          document: direct.operationDocumentNode,
          pathInIncomingRequest: [],
        });
        if (response.data && !response.errors?.length) return { data: response.data };
        // Errors are the executor's to mark and shape: it gets this answer instead of fetching again.
        return run({ ...dataSources, [direct.serviceName]: { process: async () => response } });
      })();
    },
  };
}
