import type { GraphQLDataSource, GraphQLDataSourceProcessOptions } from '@apollo/gateway';
import { GraphQLError, Kind, parse } from 'graphql';
import type { Logger } from 'pino';
import { Agent, type Dispatcher } from 'undici';
import { FORWARDED_HEADERS, type GraphContext } from '../edge/graphql/context';
import { subgraphFetchFailed } from '../edge/graphql/errors';
import { injectTrace, linkShared, type Trace } from '../core/shared/telemetry/tracing';
import { dedupeKey, inflight } from './dedupe';
import { untimed, type TimedFetch } from './fetch-telemetry';

export interface RemoteSourceOptions {
  name: string;
  url: string;
  log: Logger;
  /** Shared by every remote subgraph of a gateway (subgraphAgent): keep-alive connections, per origin, and the timeouts. */
  dispatcher: Dispatcher;
  /** Times each fetch and runs it in its span (fetch-telemetry.ts). */
  timed?: TimedFetch;
}

/**
 * Connections to remote subgraphs, kept alive and reused (one agent per gateway); a subgraph gets
 * `timeoutMs` to start answering, and again between pieces of its answer.
 */
export const subgraphAgent = (timeoutMs: number) =>
  new Agent({ keepAliveTimeout: 30_000, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });

/** An operation's context; a health check's or schema load's has none of its fields. */
const contextOf = (options: GraphQLDataSourceProcessOptions<GraphContext>): Partial<GraphContext> => options.context;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const parseOrUndefined = (query: string | undefined) => {
  try {
    return query ? parse(query) : undefined;
  } catch {
    return undefined;
  }
};

/**
 * A fetch that failed as a whole, as the answer of a subgraph whose fields all failed: for a fetch
 * of root fields, the error once per field it asked for, with that field's path (so a client sees
 * which null it explains); for a fetch of entities, the error once, thrown (the gateway adds no path).
 */
function fieldErrors(options: GraphQLDataSourceProcessOptions<GraphContext>, error: GraphQLError) {
  const atRoot = 'pathInIncomingRequest' in options && options.pathInIncomingRequest?.length === 0;
  // The plan's document when @apollo/gateway kept it, else the text (parsed only on this failure path).
  const root = atRoot ? (options.document ?? parseOrUndefined(options.request.query)) : undefined;
  const operation = root?.definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION);
  const selections = operation?.kind === Kind.OPERATION_DEFINITION ? operation.selectionSet.selections : [];
  if (!selections.length || selections.some((f) => f.kind !== Kind.FIELD)) throw error;
  const keys = selections.map((f) => (f.kind === Kind.FIELD ? (f.alias ?? f.name).value : ''));
  return { errors: keys.map((key) => new GraphQLError(error.message, { path: [key], extensions: error.extensions })) };
}

/**
 * A subgraph served elsewhere, reached with undici's request API. It does what @apollo/gateway's
 * RemoteGraphQLDataSource does for us (POST the operation, forward the caller's credentials,
 * subgraph errors as they came) at a fraction of the CPU: that source goes through WHATWG fetch
 * with two Headers copies and a Request object per fetch, which made it the remote gateway's
 * largest cost. A subgraph that cannot be reached, stalls past the timeout or answers something
 * other than GraphQL is an UPSTREAM_ERROR naming it; an HTTP error whose body holds coded GraphQL
 * errors keeps the subgraph's first error. Identical queries in flight share one fetch (dedupe.ts).
 * Each fetch is timed and in its span; the request carries that span as `traceparent`, added to the
 * exchange once its dedupe key is known (callers sharing one exchange share the first one's trace).
 */
export class RemoteDataSource implements GraphQLDataSource<GraphContext> {
  private readonly origin: string;
  private readonly path: string;

  constructor(private readonly opts: RemoteSourceOptions) {
    const u = new URL(opts.url);
    this.origin = u.origin;
    this.path = `${u.pathname}${u.search}`;
  }

  /** Identical fetches in flight share one HTTP exchange; each caller parses the text itself. */
  private readonly shared = inflight<{ status: number; text: string }, Trace | undefined>();

  process(options: GraphQLDataSourceProcessOptions<GraphContext>) {
    return (this.opts.timed ?? untimed)(contextOf(options).trace, (trace) => this.fetch(options, trace));
  }

  private async fetch(options: GraphQLDataSourceProcessOptions<GraphContext>, trace: Trace | undefined) {
    const { request } = options;
    const context = contextOf(options);
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    for (const name of FORWARDED_HEADERS) {
      const value = context.headers?.[name];
      if (value) headers[name] = value;
    }
    // The subgraph believes this only from peers its TRUST_PROXY names (loopback by default).
    if (context.clientAddress) headers['x-forwarded-for'] = context.clientAddress;
    const body = JSON.stringify({
      query: request.query,
      variables: request.variables,
      operationName: request.operationName,
      extensions: request.extensions,
    });
    let status: number;
    let parsed: unknown;
    const key = dedupeKey(options);
    // A fetch of the caller's alone (a mutation, an event's entities) ends when the caller leaves,
    // so the subgraph sees its request closed and stops (the chat subgraph: the model call).
    const signal = key === undefined ? context.signal : undefined;
    try {
      const share = this.shared(
        key,
        async () => {
          const res = await this.opts.dispatcher.request({
            origin: this.origin,
            path: this.path,
            method: 'POST',
            headers: injectTrace(headers, trace),
            body,
            signal,
          });
          return { status: res.statusCode, text: await res.body.text() };
        },
        trace,
      );
      if (!share.mine) linkShared(trace, share.joined);
      ({ status, text: parsed } = await share.result);
    } catch (err) {
      return fieldErrors(options, subgraphFetchFailed(this.opts.name, err, this.opts.log));
    }
    try {
      parsed = JSON.parse(parsed as string);
    } catch {
      parsed = undefined;
    }
    if (status < 200 || status > 299 || !isObject(parsed)) {
      // As RemoteGraphQLDataSource reports it: the status and body in extensions.response.
      const failure = new GraphQLError(`${status}`, {
        extensions: { response: { status: status < 200 || status > 299 ? status : undefined, body: parsed } },
      });
      return fieldErrors(options, subgraphFetchFailed(this.opts.name, failure, this.opts.log));
    }
    return parsed as { data?: Record<string, unknown> | null; errors?: GraphQLError[]; extensions?: Record<string, unknown> };
  }
}
