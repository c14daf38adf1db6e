import type { GraphQLDataSource, GraphQLDataSourceProcessOptions } from '@apollo/gateway';
import { execute, parse, validate, type DocumentNode, type ExecutionResult, type GraphQLError, type GraphQLSchema } from 'graphql';
import { dedupeKey, inflight } from './dedupe';
import { linkShared, type Trace } from '../core/shared/telemetry/tracing';
import type { GraphContext } from '../edge/graphql/context';
import { untimed, type TimedFetch } from './fetch-telemetry';

type Prepared = { document: DocumentNode } | { errors: readonly GraphQLError[] };

/**
 * A subgraph in this process, as @apollo/gateway's LocalGraphQLDataSource serves one, less the
 * cost that made it the gateway's bottleneck: that source parses and validates every fetch of the
 * query plan, though a plan sends the same few operation texts again and again. Here each text is
 * parsed and validated once (a bounded map; a plan cache miss only costs a parse), then executed;
 * identical queries in flight share one execution. Each fetch is timed (`timed`, fetch-telemetry.ts)
 * and its resolvers get the operation's trace (`GraphContext.trace`), so their own spans are its children.
 */
export class InProcessDataSource implements GraphQLDataSource<Record<string, unknown>> {
  private readonly prepared = new Map<string, Prepared>();

  constructor(
    /** The subgraph's executable schema. */
    readonly schema: GraphQLSchema,
    private readonly maxDocuments = 2000,
    private readonly timed: TimedFetch = untimed,
  ) {}

  private prepare(query: string): Prepared {
    let hit = this.prepared.get(query);
    if (hit) return hit;
    try {
      const document = parse(query);
      const errors = validate(this.schema, document);
      hit = errors.length ? { errors } : { document };
    } catch (err) {
      hit = { errors: [err as GraphQLError] };
    }
    // The planner writes these texts, not callers; the bound keeps a flood of distinct plans in check.
    if (this.prepared.size >= this.maxDocuments) this.prepared.delete(this.prepared.keys().next().value!);
    this.prepared.set(query, hit);
    return hit;
  }

  /** Identical queries in flight share one execution (dedupe.ts); a caller who joins one links the span its fetch runs in (its operation's) to the first caller's. */
  private readonly shared = inflight<ExecutionResult, Trace | undefined>();

  process(options: GraphQLDataSourceProcessOptions<Record<string, unknown>>) {
    const context = (options.context ?? {}) as GraphContext;
    // In process the fetch has no span: its resolvers run in the operation's trace, the context's own.
    return this.timed(context.trace, () => this.fetch(options, context));
  }

  private async fetch(options: GraphQLDataSourceProcessOptions<Record<string, unknown>>, contextValue: GraphContext) {
    const { request } = options;
    const prepared = this.prepare(request.query ?? '');
    if ('errors' in prepared) return { errors: prepared.errors };
    const run = async () =>
      execute({
        schema: this.schema,
        document: prepared.document,
        variableValues: request.variables,
        operationName: request.operationName,
        contextValue,
      });
    const share = this.shared(dedupeKey(options), run, contextValue.trace);
    if (!share.mine) linkShared(contextValue.trace, share.joined);
    const result = await share.result;
    if (share.mine) return result;
    // A result with errors is not shared: they may wrap internal errors only their own caller's
    // formatting masks, and a copy would lose what they are. Such a caller runs its own.
    return result.errors ? run() : structuredClone(result);
  }
}
