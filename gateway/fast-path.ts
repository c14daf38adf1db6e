import { createHash } from 'node:crypto';
import type { GraphQLDataSource } from '@apollo/gateway';
import { HeaderMap, type ApolloServerPlugin, type GraphQLRequestListener } from '@apollo/server';
import type { RequestHandler } from 'express';
import {
  GraphQLError,
  getVariableValues,
  Kind,
  parse,
  specifiedRules,
  validate,
  visit,
  BREAK,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLFormattedError,
} from 'graphql';
import type { Logger } from 'pino';
import { contextFrom, type GraphContext } from '../edge/graphql/context';
import { setMerged } from './cache-control';
import { extraRules } from '../edge/graphql/limits';
import type { ApolloPlanner, QueryPlanned } from './apollo-planner';

export interface FastPathOptions {
  planner: ApolloPlanner;
  dataSources: Record<string, GraphQLDataSource>;
  /** The gateway's own Apollo Server plugins, whose request hooks run as Apollo Server runs them (operation telemetry, recent errors). */
  plugins: ApolloServerPlugin<GraphContext>[];
  /** Apollo Server's formatError. */
  formatError: (formatted: GraphQLFormattedError, error: unknown) => GraphQLFormattedError;
  log: Logger;
  /** Documents remembered (default 1000), each at most 8192 characters; the oldest out first. */
  maxDocuments?: number;
  /**
   * Room for what is remembered, in bytes, approximated as ApolloGateway sizes its plans (their
   * JSON) plus ten bytes per character of text for the document; the oldest out first
   * (GRAPHQL_QUERY_PLAN_CACHE_MB, 30 MiB by default, as for Apollo's own plans).
   */
  maxBytes?: number;
}

/** A document the fast path answers, prepared once: parsed, validated, planned. */
interface Prepared {
  document: DocumentNode;
  plan: QueryPlanned;
  /** Its operation's name as Apollo Server's hooks get it. */
  operationName: string | null;
}

const MAX_CHARS = 8192;
const JSON_TYPE = /^application\/json(?:;\s*charset=utf-8)?$/i;
// What Apollo Server answers a request accepting these with (its MEDIA_TYPES.APPLICATION_JSON).
const ACCEPTED = new Set([undefined, '*/*', 'application/json']);
const CONTENT_TYPE = 'application/json; charset=utf-8';
// Apollo Server's cache control plugin, with no hint from any subgraph: the answer is not to be cached.
const CACHE_CONTROL = 'no-store';

/**
 * The gateway's fast path, the last middleware before Apollo Server: a plain query POSTed as JSON
 * (`query`, optional `operationName` and `variables`; no `extensions`, so no persisted query) whose
 * document is valid and plannable is parsed, validated and planned once per text, then run through
 * @apollo/gateway's executeQueryPlan with the same data sources, context, plugins' hooks (operation
 * telemetry and span, recent errors), error formatting, status and headers as Apollo Server would:
 * the same answer without its request pipeline (a hash of the text per request, its hooks' promises,
 * the executor's own lookups). Everything else goes on to Apollo Server: mutations, introspection
 * (`__schema`, `__type`), any directive (`@defer`, `@skip`), documents that fail validation or
 * planning, variables that do not coerce, other content types or Accept headers, GET.
 * A JSON body is preflighted, as Apollo's CSRF prevention requires (edge/graphql/csrf.ts).
 */
export function fastPath(opts: FastPathOptions): RequestHandler {
  const max = opts.maxDocuments ?? 1000;
  const maxBytes = opts.maxBytes ?? 30 * 2 ** 20;
  // Texts the fast path does not answer are remembered too (their key only), so they are judged once.
  const known = new Map<string, { prepared: Prepared | null; bytes: number }>();
  let bytes = 0;
  const rules = [...specifiedRules, ...extraRules];
  const schema = opts.planner.apiSchema;

  const prepare = (query: string, operationName: string | undefined): Prepared | null => {
    let document: DocumentNode;
    try {
      document = parse(query);
    } catch {
      return null;
    }
    if (!plain(document) || validate(schema, document, rules).length) return null;
    try {
      const plan = opts.planner.planQuery(document, operationName);
      return plan ? { document, plan, operationName: plan.operation.name?.value ?? null } : null;
    } catch {
      return null;
    }
  };
  const forget = (key: string) => {
    bytes -= known.get(key)?.bytes ?? 0;
    known.delete(key);
  };
  const preparedOf = (query: string, operationName: string | undefined): Prepared | null => {
    const key = `${operationName ?? ''}\0${query}`;
    const hit = known.get(key);
    if (hit) return hit.prepared;
    const prepared = prepare(query, operationName);
    const size = key.length * 2 + (prepared ? prepared.plan.bytes + query.length * 10 : 0);
    if (size > maxBytes / 4) return prepared;
    while (known.size && (known.size >= max || bytes + size > maxBytes)) forget(known.keys().next().value!);
    known.set(key, { prepared, bytes: size });
    bytes += size;
    return prepared;
  };

  return (req, res, next) => {
    if (req.method !== 'POST' || !JSON_TYPE.test(req.get('content-type') ?? '') || !ACCEPTED.has(req.get('accept'))) return next();
    if (req.get('apollo-query-plan-experimental') !== undefined) return next();
    const body = req.body as Record<string, unknown> | undefined;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return next();
    const { query, operationName, variables } = body;
    for (const key in body) if (key !== 'query' && key !== 'operationName' && key !== 'variables') return next();
    if (typeof query !== 'string' || query.length > MAX_CHARS) return next();
    if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') return next();
    if (variables !== undefined && variables !== null && (typeof variables !== 'object' || Array.isArray(variables))) return next();
    const prepared = preparedOf(query, operationName ?? undefined);
    if (!prepared) return next();
    const vars = (variables ?? {}) as Record<string, unknown>;
    const definitions = prepared.plan.operation.variableDefinitions ?? [];
    // Variables that do not coerce: Apollo Server's answer (its codes, its 400).
    if (definitions.length && getVariableValues(schema, definitions, vars).errors) return next();
    answer(opts, prepared, query, operationName ?? undefined, vars, contextFrom(req)).then(
      ({ status, headers, body: text }) => {
        // Headers a plugin set, as Apollo Server sets them; the cache control plugin's when none did.
        headers.forEach((value, name) => setMerged(res, name, value));
        if (!headers.has('cache-control')) res.setHeader('cache-control', CACHE_CONTROL);
        res.setHeader('content-type', CONTENT_TYPE);
        res.statusCode = status;
        // What express's res.send does with a string here (ETag is off app-wide; a POST is never fresh).
        res.setHeader('content-length', Buffer.byteLength(text));
        res.end(text);
      },
      (err: unknown) => next(err),
    );
  };
}

/**
 * What the gateway's plugins read of Apollo Server's request context. A class: its lazy
 * `queryHash` is a prototype getter (an object literal with a getter is slow to build, per request).
 */
class RequestContext {
  readonly request: { query: string; operationName: string | undefined; variables: Record<string, unknown> };
  readonly document: DocumentNode;
  readonly source: string;
  readonly operation: QueryPlanned['operation'];
  readonly operationName: string | null;
  readonly schema: FastPathOptions['planner']['apiSchema'];
  readonly logger: Logger;
  readonly metrics = {};
  readonly response: { http: { status?: number; headers: HeaderMap }; body?: { kind: 'single'; singleResult: Record<string, unknown> } };
  errors: readonly GraphQLError[] | undefined = undefined;

  constructor(
    opts: FastPathOptions,
    prepared: Prepared,
    query: string,
    operationName: string | undefined,
    variables: Record<string, unknown>,
    readonly contextValue: GraphContext,
    http: { status?: number; headers: HeaderMap },
  ) {
    this.request = { query, operationName, variables };
    this.document = prepared.document;
    this.source = query;
    this.operation = prepared.plan.operation;
    this.operationName = prepared.operationName;
    this.schema = opts.planner.apiSchema;
    this.logger = opts.log;
    this.response = { http, body: undefined };
  }

  /** Apollo Server's SHA-256 of the text (the response cache's key): computed only when read. */
  get queryHash(): string {
    return createHash('sha256').update(this.source).digest('hex');
  }
}

/** Apollo Server's request hooks around executeQueryPlan, and its answer's status and body. */
async function answer(
  opts: FastPathOptions,
  prepared: Prepared,
  query: string,
  operationName: string | undefined,
  variables: Record<string, unknown>,
  contextValue: GraphContext,
): Promise<{ status: number; headers: HeaderMap; body: string }> {
  const { document, plan } = prepared;
  const http = { status: undefined as number | undefined, headers: new HeaderMap() };
  const rc = new RequestContext(opts, prepared, query, operationName, variables, contextValue, http);
  const listeners: GraphQLRequestListener<GraphContext>[] = [];
  for (const p of opts.plugins) {
    const l = await p.requestDidStart?.(rc as never);
    if (l) listeners.push(l);
  }
  // Each hook of each listener that has it, in the plugins' order (Apollo Server starts them at once; ours do not wait on anything).
  const hook = async (name: 'didResolveOperation' | 'didEncounterErrors' | 'willSendResponse') => {
    for (const l of listeners) await l[name]?.(rc as never);
  };
  await hook('didResolveOperation');
  // A plugin may answer instead of the plan (the response cache, cache-control.ts), as in Apollo Server.
  let kept: Record<string, unknown> | undefined;
  for (const l of listeners) {
    const r = await l.responseForOperation?.(rc as never);
    if (r?.body.kind === 'single') {
      kept = r.body.singleResult as Record<string, unknown>;
      break;
    }
  }
  let single: Record<string, unknown>;
  if (kept) single = kept;
  else {
    const result: ExecutionResult = await opts.planner.runQuery(
      plan,
      { document, operationName, variables, context: contextValue },
      opts.dataSources,
    );
    let errors: GraphQLFormattedError[] | undefined;
    if (result.errors?.length) {
      rc.errors = result.errors;
      await hook('didEncounterErrors');
      errors = result.errors.map((e) => formatted(e, opts, http));
      if (result.data === undefined && http.status === undefined) http.status = 400;
    }
    // Apollo Server's order of the fields.
    single = { errors, data: result.data, extensions: result.extensions };
  }
  rc.response.body = { kind: 'single', singleResult: single };
  await hook('willSendResponse');
  // Apollo Server's newline.
  const body = `${JSON.stringify(single)}\n`;
  return { status: http.status ?? 200, headers: http.headers, body };
}

/** One error as Apollo Server formats it: a code (INTERNAL_SERVER_ERROR when none), an `http` extension taken out, then formatError. */
function formatted(error: GraphQLError, opts: FastPathOptions, http: { status?: number }): GraphQLFormattedError {
  try {
    const extensions: Record<string, unknown> = { ...error.extensions, code: error.extensions.code ?? 'INTERNAL_SERVER_ERROR' };
    const head = extensions.http as { status?: unknown } | undefined;
    if (head && typeof head === 'object') {
      if (typeof head.status === 'number') http.status = head.status;
      delete extensions.http;
    }
    return opts.formatError({ ...error.toJSON(), extensions }, error);
  } catch {
    return { message: 'Internal server error', extensions: { code: 'INTERNAL_SERVER_ERROR' } };
  }
}

/** Whether a document has no directive and no schema introspection (`__schema`, `__type`): what only Apollo Server answers. */
function plain(document: DocumentNode): boolean {
  let ok = true;
  visit(document, {
    Directive() {
      ok = false;
      return BREAK;
    },
    Field(node) {
      if (node.name.value === '__schema' || node.name.value === '__type') {
        ok = false;
        return BREAK;
      }
      return undefined;
    },
  });
  return ok && document.definitions.every((d) => d.kind === Kind.OPERATION_DEFINITION || d.kind === Kind.FRAGMENT_DEFINITION);
}
