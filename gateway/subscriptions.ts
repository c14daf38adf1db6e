import type { GraphQLDataSource } from '@apollo/gateway';
import { GraphQLError, type DocumentNode, type ExecutionResult, type GraphQLSchema } from 'graphql';
import type { Logger } from 'pino';
import type { GraphContext } from '../edge/graphql/context';
import { apolloPlanner, type ApolloPlanner, type SubscriptionPlan } from './apollo-planner';
import { printed } from './printed';
import type { SubgraphStream } from './subgraph-stream';
import { withoutStreams } from './defer/document';
import { setImmediate as yieldTurn } from 'node:timers/promises';

/** One subscription operation as a client sent it, with the caller's context. */
export interface SubscriptionRequest {
  document: DocumentNode;
  operationName?: string | null;
  variables?: Record<string, unknown> | null;
  context: GraphContext;
}

/** The events of a subscription, or the result that refused it. */
export type SubscriptionOutcome = AsyncIterableIterator<ExecutionResult> | ExecutionResult;

export interface FederatedSubscriptions {
  /** The graph's API schema (what clients validate against), as graphql-js. */
  schema: GraphQLSchema;
  /** The supergraph's planner, which the gateway's deferred operations share. */
  planner: ApolloPlanner;
  subscribe(request: SubscriptionRequest): Promise<SubscriptionOutcome>;
}

export interface FederatedSubscriptionOptions {
  supergraphSdl: string;
  /** The gateway's data sources by subgraph name: the fields other subgraphs own come from them. */
  dataSources: Record<string, GraphQLDataSource>;
  /** Opens the subscription on the subgraph that owns the root field. */
  stream: SubgraphStream;
  log: Logger;
  /** Plans kept, least recently used dropped (default 500). */
  maxPlans?: number;
  /** The supergraph's planner when the gateway has one already (built from supergraphSdl otherwise). */
  planner?: ApolloPlanner;
}

/** An error of a subgraph's answer, marked with the subgraph's name as the gateway marks fetch errors. */
const fromSubgraph =
  (serviceName: string) => (e: { message?: string; path?: readonly (string | number)[]; extensions?: Record<string, unknown> }) =>
    new GraphQLError(e.message || `Error while subscribing at the ${serviceName} subgraph`, {
      path: e.path,
      extensions: { code: 'UPSTREAM_ERROR', ...e.extensions, serviceName },
    });

/**
 * Federated subscriptions, which @apollo/gateway plans but does not execute. The query planner
 * splits a subscription into its primary fetch (the root field, on the subgraph that owns it) and
 * the rest (fields of the events' entities that other subgraphs own). The primary fetch is
 * subscribed to on its subgraph (SubgraphStream: in process or over graphql-ws); each event it sends
 * is then run through @apollo/gateway's own executor as the answer of that primary fetch, so the
 * rest is fetched (one batched `_entities` call per subgraph and event) and the result shaped exactly
 * as for a query. `return()` on the events ends the subgraph's subscription at once, even while an
 * event is awaited. Apollo's planner and executor are reached only through apollo-planner.ts.
 */
export function federatedSubscriptions(opts: FederatedSubscriptionOptions): FederatedSubscriptions {
  const planner = opts.planner ?? apolloPlanner(opts.supergraphSdl, opts.log);
  const schema = planner.apiSchema;
  const plans = new Map<string, SubscriptionPlan>();
  const maxPlans = opts.maxPlans ?? 500;

  const planOf = (document: DocumentNode, operationName: string | undefined) => {
    const key = `${operationName ?? ''}\n${printed(document)}`;
    const known = plans.get(key);
    if (known) {
      plans.delete(key);
      plans.set(key, known);
      return known;
    }
    const planned = planner.planSubscription(document, operationName);
    if (!planned) throw new GraphQLError('Not a subscription operation', { extensions: { code: 'BAD_USER_INPUT' } });
    plans.set(key, planned);
    if (plans.size > maxPlans) plans.delete(plans.keys().next().value!);
    return planned;
  };

  return {
    schema,
    planner,
    async subscribe({ document: asked, operationName, variables, context }) {
      const document = withoutStreams(asked);
      const name = operationName ?? undefined;
      const plan = planOf(document, name);
      const { primary } = plan;
      const vars = variables ?? {};
      const run = planner.runner(plan, { document, operationName: name, variables: vars, context }, opts.dataSources);
      const used = Object.fromEntries(primary.variableUsages.filter((v) => vars[v] !== undefined).map((v) => [v, vars[v]]));
      const opened = await opts.stream.open(primary.subgraph, {
        query: primary.operation,
        operationName: primary.operationName,
        variables: used,
        context,
      });
      const marked = fromSubgraph(primary.subgraph);
      if (!('next' in opened)) return { ...opened, errors: opened.errors?.map(marked) };

      let ended = false;
      let sent = 0;
      const events: AsyncIterableIterator<ExecutionResult> = {
        async next() {
          if (ended) return { done: true, value: undefined };
          // After each event, a turn of the event loop for everyone else (fairness): events that
          // arrive together (a model's pieces read in one go) would otherwise run back to back in
          // one turn, and every other subscription's first event wait behind them.
          if (sent++) await yieldTurn();
          if (ended) return { done: true, value: undefined };
          const r = await opened.next();
          if (r.done || ended) return { done: true, value: undefined };
          const event = r.value;
          if (!event.data) return { done: false, value: { errors: (event.errors ?? [{ message: 'No data' }]).map(marked) } };
          return { done: false, value: await run(event) };
        },
        async return() {
          ended = true;
          // Not awaited: a subgraph stalled before its next event must not hold the client's completion.
          opened.return?.().catch(() => undefined);
          return { done: true, value: undefined };
        },
        // A transport ending the events with an error ends them as return() does. graphql-sse ends
        // only async generators (next, return and throw) when its client leaves: without throw, an
        // SSE subscriber's model call ran on to the end after the client had gone.
        async throw() {
          return events.return!();
        },
        [Symbol.asyncIterator]() {
          return this;
        },
      };
      return events;
    },
  };
}
