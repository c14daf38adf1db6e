import { ServerResponse, type IncomingMessage, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Request, Response } from 'express';
import { GraphQLError, NoSchemaIntrospectionCustomRule, parse, specifiedRules, validate, type ExecutionArgs, type GraphQLFormattedError } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import type { Logger } from 'pino';
import { WebSocketServer } from 'ws';
import type { TokenVerifier } from '../core/auth/verifier';
import { PlatformError } from '../core/errors';
import { contextFromConnection } from './context';
import { CODE, formatGraphQLError, toGraphQLError } from './graphql-errors';
import { documentGuard, introspectionRules, type GraphqlLimits } from './limits';
import type { Subgraph } from './index';

export interface WebSocketOptions {
  limits: GraphqlLimits;
  /** Verifies the bearer token of connection_init's payload for each operation. */
  verifier?: TokenVerifier;
  /** Where the endpoint answers upgrades (default /graphql). */
  path?: string;
  /** Largest message accepted, in bytes (as the HTTP body limit). */
  maxPayloadBytes?: number;
  /** A socket that sends no connection_init within this is closed with 4408 (default 3000 ms, graphql-ws's). */
  connectionInitTimeoutMs?: number;
  /** Operations running at once on one socket (default 20). */
  maxOperationsPerSocket?: number;
  /** Answers introspection (`__schema`, `__type`); default true (`GRAPHQL_INTROSPECTION`), as over HTTP. */
  introspection?: boolean;
}

export interface WebSocketEndpoint {
  /** Closes every socket (their operations end, model calls abort) and stops taking upgrades. */
  close(): Promise<void>;
}

const withCode = (e: GraphQLError, code: string) => new GraphQLError(e.message, { nodes: e.nodes, source: e.source, positions: e.positions, extensions: { ...e.extensions, code } });
const refusal = (message: string, code: string) => new GraphQLError(message, { extensions: { code } });

/**
 * An error as the socket's client sees it, coded as over HTTP: a platform error by its kind (with
 * `reason` and `issues`), anything unexpected masked; an error outside any field and without a code
 * (bad variables, an unknown operation) is the request's fault.
 */
function format(e: GraphQLError, log: Logger): GraphQLFormattedError {
  const original = e.originalError;
  if (original && !(original instanceof GraphQLError)) {
    const coded = toGraphQLError(original, log);
    return formatGraphQLError({ ...e.toJSON(), message: coded.message, extensions: coded.extensions }, coded);
  }
  if (!e.path && e.extensions.code === undefined) return { ...e.toJSON(), extensions: { code: 'BAD_USER_INPUT' } };
  return formatGraphQLError(e.toJSON(), e);
}

/** The document guard of the HTTP endpoint (size, depth, aliases, cost, mutations), on a socket's operation. */
function guard(limits: GraphqlLimits) {
  const check = documentGuard(limits, () => true);
  return (payload: unknown): GraphQLError | undefined => {
    let refused: unknown;
    check({ method: 'POST', body: payload } as Request, {} as Response, (err?: unknown) => void (refused = err));
    if (refused instanceof PlatformError) return refusal(refused.message, refused.code ?? CODE[refused.kind]);
    return refused ? refusal('Internal server error', 'INTERNAL_SERVER_ERROR') : undefined;
  };
}

const pathOf = (url: string | undefined) => {
  try {
    return new URL(url ?? '/', 'http://localhost').pathname;
  } catch {
    return undefined;
  }
};

/**
 * An upgrade that is not ours (another path, `Upgrade: h2c` from curl --http2) is answered as the
 * plain request it also is, as node does when nobody listens for upgrades: a GET or HEAD goes to the
 * app; anything else, whose body node no longer reads, is refused.
 */
function answerAsHttp(server: Server, req: IncomingMessage, socket: Duplex) {
  socket.on('error', () => socket.destroy());
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    return;
  }
  const res = new ServerResponse(req);
  res.shouldKeepAlive = false;
  res.assignSocket(socket as Socket);
  res.once('finish', () => {
    res.detachSocket(socket as Socket);
    socket.end();
  });
  server.emit('request', req, res);
}

/**
 * The subgraph's operations over WebSocket (graphql-ws's `graphql-transport-ws` protocol) on the
 * HTTP server's `path`: subscriptions, and queries and mutations too. Each operation is bounded by
 * the same limits as over HTTP before it is parsed, validated with the same rules, and its context
 * is built like an HTTP request's from connection_init's payload (contextFromConnection). When the
 * client completes an operation or the socket closes, its iterator's `return()` runs, which stops
 * the work behind it.
 */
export function serveWebSocket(server: Server, subgraph: Subgraph, log: Logger, opts: WebSocketOptions): WebSocketEndpoint {
  const path = opts.path ?? '/graphql';
  const maxOperations = opts.maxOperationsPerSocket ?? 20;
  const bounded = guard(opts.limits);
  const rules = [...specifiedRules, ...introspectionRules, ...(opts.introspection === false ? [NoSchemaIntrospectionCustomRule] : [])];
  const wss = new WebSocketServer({ noServer: true, maxPayload: opts.maxPayloadBytes ?? 1_048_576 });
  const endpoint = useServer({
    schema: subgraph.schema,
    isProd: true,
    connectionInitWaitTimeout: opts.connectionInitTimeoutMs ?? 3000,
    onSubscribe: async (ctx, _id, payload): Promise<ExecutionArgs | readonly GraphQLError[]> => {
      if (Object.keys(ctx.subscriptions).length > maxOperations) {
        return [refusal(`At most ${maxOperations} operations run at once on one socket`, 'TOO_MANY_OPERATIONS')];
      }
      const refused = bounded(payload);
      if (refused) return [refused];
      let document;
      try {
        document = parse(payload.query, { maxTokens: opts.limits.maxTokens });
      } catch (err) {
        return [withCode(err as GraphQLError, 'GRAPHQL_PARSE_FAILED')];
      }
      const invalid = validate(subgraph.schema, document, rules);
      if (invalid.length) return invalid.map((e) => withCode(e, 'GRAPHQL_VALIDATION_FAILED'));
      return {
        schema: subgraph.schema, document, operationName: payload.operationName, variableValues: payload.variables,
        contextValue: await contextFromConnection(ctx.connectionParams, ctx.extra.request, opts.verifier),
      };
    },
    onNext: (_ctx, _id, _payload, _args, result) => (result.errors ? { ...result, errors: result.errors.map((e) => format(e, log)) } : undefined),
    onError: (_ctx, _id, _payload, errors) => errors.map((e) => format(e, log)),
  }, wss);

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (pathOf(req.url) === path && req.headers.upgrade?.toLowerCase() === 'websocket') {
      wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
    } else {
      answerAsHttp(server, req, socket);
    }
  };
  server.on('upgrade', onUpgrade);

  return {
    async close() {
      server.off('upgrade', onUpgrade);
      for (const client of wss.clients) client.close(1001, 'Going away');
      // A client that does not answer the closing handshake is not waited for.
      const stragglers = setTimeout(() => wss.clients.forEach((c) => c.terminate()), 1000);
      try {
        await endpoint.dispose();
      } finally {
        clearTimeout(stragglers);
      }
    },
  };
}
