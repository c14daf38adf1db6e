import type { ErrorRequestHandler } from 'express';
import { GraphQLError, GraphQLScalarType, type GraphQLFormattedError } from 'graphql';
import { unwrapResolverError } from '@apollo/server/errors';
import type { Logger } from 'pino';
import { PlatformError, ValidationFailed, type ErrorKind } from '../../core/shared/errors';
import { STATUS } from '../http/errors';
import { bodyTooDeep } from '../http/json-body';
import { asUnavailable } from '../../core/shared/unavailable';

/** The only place that picks a GraphQL error code. Record<> makes a new kind a compile error. */
export const CODE: Record<ErrorKind, string> = {
  bad_request: 'BAD_USER_INPUT',
  unauthenticated: 'UNAUTHENTICATED',
  forbidden: 'FORBIDDEN',
  not_found: 'NOT_FOUND',
  method_not_allowed: 'BAD_REQUEST',
  conflict: 'CONFLICT',
  precondition_failed: 'PRECONDITION_FAILED',
  payload_too_large: 'PAYLOAD_TOO_LARGE',
  unsupported_media_type: 'BAD_USER_INPUT',
  validation: 'BAD_USER_INPUT',
  rate_limited: 'RATE_LIMITED',
  upstream: 'UPSTREAM_ERROR',
  upstream_timeout: 'UPSTREAM_ERROR',
  unavailable: 'SERVICE_UNAVAILABLE',
  internal: 'INTERNAL_SERVER_ERROR',
};

const INTERNAL = 'Internal server error';

/**
 * An error of a result executed outside Apollo Server (graphql-ws, GraphQL over SSE, a subgraph
 * subscribed to in process) as its client sees it, coded as over HTTP: a platform error by its kind (with
 * `reason` and `issues`), anything unexpected masked; an error outside any field and without a code
 * (bad variables, an unknown operation) is the request's fault.
 */
export function formatExecutionError(e: GraphQLError | GraphQLFormattedError, log: Logger): GraphQLFormattedError {
  // Already formatted: the answer of Apollo Server or of a remote subgraph.
  if (!(e instanceof GraphQLError)) return e;
  const original = e.originalError;
  // A thrown error, not a subgraph's answer (which the gateway keeps as the original of its error).
  if (original instanceof Error && !(original instanceof GraphQLError)) {
    const coded = toGraphQLError(original, log);
    return formatGraphQLError({ ...e.toJSON(), message: coded.message, extensions: coded.extensions }, coded, log);
  }
  if (!e.path && e.extensions.code === undefined) return { ...e.toJSON(), extensions: { code: 'BAD_USER_INPUT' } };
  return formatGraphQLError(e.toJSON(), e, log);
}

/**
 * A thrown value as the GraphQLError a client may see. Errors carry their code from the resolver
 * on, so the answer is the same whether the gateway reaches the subgraph in process or over HTTP.
 */
export function toGraphQLError(thrown: unknown, log: Logger): GraphQLError {
  if (thrown instanceof GraphQLError) return thrown;
  const err = asUnavailable(thrown) ?? thrown;
  if (err instanceof PlatformError && err.expose) {
    return new GraphQLError(err.message, {
      extensions: {
        code: CODE[err.kind],
        ...(err.code ? { reason: err.code } : {}),
        ...(err instanceof ValidationFailed ? { issues: err.issues } : {}),
      },
    });
  }
  log.error({ err }, 'unhandled resolver error');
  // The cause stays on the error for the recent errors (recent-errors.ts); its message is never sent.
  return new GraphQLError(INTERNAL, {
    extensions: { code: 'INTERNAL_SERVER_ERROR' },
    originalError: err instanceof Error ? err : undefined,
  });
}

type Fn = (...args: unknown[]) => unknown;
type ResolverMap = Record<string, Record<string, unknown>>;

/** Wraps every resolver function so whatever it throws leaves as a coded GraphQLError. */
export function withErrorCodes<R extends ResolverMap>(resolvers: R, log: Logger): R {
  const out: ResolverMap = {};
  for (const [type, fields] of Object.entries(resolvers)) {
    if (fields instanceof GraphQLScalarType) {
      out[type] = fields;
      continue;
    }
    out[type] = {};
    for (const [name, value] of Object.entries(fields)) {
      out[type][name] =
        typeof value === 'function'
          ? async (...args: unknown[]) => {
              try {
                return await (value as Fn)(...args);
              } catch (err) {
                throw toGraphQLError(err, log);
              }
            }
          : value;
    }
  }
  return out as R;
}

/**
 * Errors Apollo raises itself for a bad request carry an HTTP 4xx but sometimes no code (an
 * unsupported persisted-query version, a hash that does not match the query): the caller's fault,
 * so their message stands.
 */
function isApolloRequestError(error: unknown): error is GraphQLError {
  if (!(error instanceof GraphQLError) || error.extensions.code !== undefined) return false;
  const status = (error.extensions.http as { status?: unknown } | undefined)?.status;
  return typeof status === 'number' && status >= 400 && status < 500;
}

/**
 * formatError for servers: never a stack trace, and internal messages masked. What is masked here
 * is logged here (with `log`), unless it was masked, and so logged, before (a resolver's error
 * through toGraphQLError, a subgraph's answer).
 */
export function formatGraphQLError(formatted: GraphQLFormattedError, error: unknown, log?: Logger): GraphQLFormattedError {
  const unwrapped = unwrapResolverError(error);
  const original = asUnavailable(unwrapped) ?? unwrapped;
  const code = formatted.extensions?.code;
  if (original instanceof PlatformError && original.expose) {
    return { ...formatted, extensions: { ...formatted.extensions, code: CODE[original.kind] } };
  }
  if (isApolloRequestError(error)) return { message: formatted.message, extensions: { code: 'BAD_REQUEST' } };
  if (!code || code === 'INTERNAL_SERVER_ERROR') {
    if (formatted.message !== INTERNAL) log?.error({ err: original, path: formatted.path }, 'internal error in a GraphQL operation');
    return { message: INTERNAL, locations: formatted.locations, path: formatted.path, extensions: { code: 'INTERNAL_SERVER_ERROR' } };
  }
  const { stacktrace: _s, exception: _e, ...extensions } = formatted.extensions ?? {};
  return { ...formatted, extensions };
}

/**
 * What the gateway reports when fetching from a remote subgraph failed at the HTTP level: the
 * subgraph is down, answered an HTTP error, or answered something that is not GraphQL. Apollo's own
 * error carries no code (or the subgraph's raw response, URL and body, for 401/403), so it is
 * replaced by one naming the subgraph: its own first coded GraphQL error when its answer had one
 * (a 4xx from its document guard), UNAUTHENTICATED/FORBIDDEN for a bare 401/403, UPSTREAM_ERROR otherwise.
 * The other subgraphs' data is still answered (partial data).
 */
export function subgraphFetchFailed(serviceName: string, error: unknown, log: Logger): GraphQLError {
  const response =
    error instanceof GraphQLError ? (error.extensions.response as { status?: unknown; body?: unknown } | undefined) : undefined;
  const status = typeof response?.status === 'number' ? response.status : undefined;
  const first = (response?.body as { errors?: { message?: unknown; extensions?: { code?: unknown } }[] } | undefined)?.errors?.[0];
  if (first && typeof first.message === 'string' && typeof first.extensions?.code === 'string') {
    return new GraphQLError(first.message, { extensions: { code: first.extensions.code, serviceName } });
  }
  if (status === 401 || status === 403) {
    return new GraphQLError(status === 401 ? 'Authentication required' : 'Forbidden', {
      extensions: { code: status === 401 ? 'UNAUTHENTICATED' : 'FORBIDDEN', serviceName },
    });
  }
  log.warn({ err: error, serviceName }, 'subgraph fetch failed');
  const message =
    status !== undefined ? `The ${serviceName} subgraph answered HTTP ${status}` : `The ${serviceName} subgraph is unavailable`;
  return new GraphQLError(message, { extensions: { code: 'UPSTREAM_ERROR', serviceName } });
}

const errorsBody = (message: string, code: string) => ({ errors: [{ message, extensions: { code } }] });

/**
 * The extensions of a platform error refusing a request: the document guard's refusals carry their
 * own GraphQL code (QUERY_TOO_DEEP, ...: upper case); other errors are coded by their kind, with
 * their own code (`json_too_deep`, `variables_too_large`) as the reason.
 */
export function refusalExtensions(e: PlatformError): { code: string; reason?: string } {
  if (e.code && /^[A-Z][A-Z_]*$/.test(e.code)) return { code: e.code };
  return { code: CODE[e.kind], ...(e.code ? { reason: e.code } : {}) };
}

/**
 * Refusals at a GraphQL endpoint before Apollo runs, answered the GraphQL way
 * (`{"errors":[{"message","extensions":{"code"}}]}`): the document guard's BadRequests (refusalExtensions),
 * a body nesting too deep, and an unreadable body (malformed JSON, too large). Keep all four parameters.
 */
export const graphqlHttpErrors: ErrorRequestHandler = (err, _req, res, next) => {
  const refused = err instanceof PlatformError ? err : bodyTooDeep(err);
  if (refused?.expose) {
    return void res.status(STATUS[refused.kind]).json({ errors: [{ message: refused.message, extensions: refusalExtensions(refused) }] });
  }
  const { status, limit } = (err ?? {}) as { status?: unknown; limit?: unknown };
  if (typeof status !== 'number' || status < 400 || status > 499) return next(err);
  // body-parser's refusal names the limit it applied: every GraphQL endpoint's is GRAPHQL_MAX_BODY_BYTES.
  const tooLarge = `Request body too large${typeof limit === 'number' ? `: at most ${limit} bytes (GRAPHQL_MAX_BODY_BYTES)` : ''}`;
  res
    .status(status)
    .json(
      status === 413
        ? errorsBody(tooLarge, 'PAYLOAD_TOO_LARGE')
        : errorsBody('Malformed request body: send JSON with a "query" string', 'BAD_REQUEST'),
    );
};
