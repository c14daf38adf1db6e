import type { GraphQLDataSource } from '@apollo/gateway';
import type { DocumentNode, ExecutionResult, GraphQLSchema, OperationDefinitionNode } from 'graphql';

/**
 * What the gateway asks of Apollo's planner and executor (gateway/apollo-planner.ts implements it):
 * the plans of subscriptions, deferred operations and queries, and how each runs for one client.
 */

/** The plan nodes of one part of a deferred operation, run in order on the same data (made and run by apollo-planner.ts only). */
export interface PlanSteps {
  readonly nodes: readonly { readonly kind: string }[];
}

/** The fetch a subscription opens on the subgraph that owns its root field. */
export interface PrimaryFetch {
  subgraph: string;
  /** The operation text to send that subgraph. */
  operation: string;
  operationName?: string;
  /** The client's variables the operation uses. */
  variableUsages: readonly string[];
}

/** A subscription planned: its primary fetch, and the rest run after each of its events. */
export interface SubscriptionPlan {
  readonly primary: PrimaryFetch;
  /** The subgraphs the rest fetches from, in plan order; empty when each event is the whole answer. */
  readonly restSubgraphs: readonly string[];
}

/** One client's subscription, as the plan runs for each of its events. */
export interface ClientOperation {
  document: DocumentNode;
  operationName?: string;
  variables: Record<string, unknown>;
  /** Handed to every data source's fetch. */
  context: unknown;
}

/** A subgraph's event: data, and errors as graphql-js or as the wire has them. */
export type SubgraphEvent = ExecutionResult | { data?: Record<string, unknown> | null; errors?: readonly unknown[] };

/** The client's result of one event: the rest fetched, merged and shaped as for a query. */
export type RunEvent = (event: SubgraphEvent) => Promise<ExecutionResult>;

/** A deferred fragment planned: its steps (the primary's and its ancestors' first) and the fragments nested in it. */
export interface DeferredPart {
  /** The `label` the fragment had in the planned document. */
  label: string;
  steps: PlanSteps;
  nested: DeferredPart[];
}

/** An operation with `@defer` planned: the initial part's steps and the deferred parts (none: the planner split nothing). */
export interface DeferPlan {
  initial: PlanSteps;
  deferred: DeferredPart[];
}

export interface ApolloPlanner {
  /** The graph's API schema (what clients validate against), without federation's internals. */
  apiSchema: GraphQLSchema;
  /** The supergraph schema, join directives and all. */
  supergraphSchema: GraphQLSchema;
  /** The plan of a subscription operation (valid against apiSchema); undefined for a query or a mutation. */
  planSubscription(document: DocumentNode, operationName?: string): SubscriptionPlan | undefined;
  /** Runs `plan` for one client: each event answers the primary fetch, `dataSources` (by subgraph name) the rest. */
  runner(plan: SubscriptionPlan, operation: ClientOperation, dataSources: Record<string, GraphQLDataSource>): RunEvent;
  /**
   * The plan of a query or mutation whose `@defer`s carry labels (gateway/defer/document.ts);
   * undefined when the planner put a Defer node where its parts cannot be run apart.
   */
  planDefer(document: DocumentNode, operationName?: string): DeferPlan | undefined;
  /** Runs `steps` on `dataSources`, the result shaped by `operation.document` (the part's own). */
  runSteps(steps: PlanSteps, operation: ClientOperation, dataSources: Record<string, GraphQLDataSource>): Promise<ExecutionResult>;
  /** The plan of a query operation (valid against apiSchema), as ApolloGateway plans it; undefined for any other. */
  planQuery(document: DocumentNode, operationName?: string): QueryPlanned | undefined;
  /** Runs a planned query for one client as ApolloGateway's executor does (executeQueryPlan: fetches, merging, result shaping). */
  runQuery(plan: QueryPlanned, operation: ClientOperation, dataSources: Record<string, GraphQLDataSource>): Promise<ExecutionResult>;
}

/** A query planned once for its document and operation name, run for every request that sends them. */
export interface QueryPlanned {
  readonly operation: OperationDefinitionNode;
  /** The plan's approximate size in bytes, as ApolloGateway sizes the plans it keeps (its JSON). */
  readonly bytes: number;
}
