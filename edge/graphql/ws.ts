import { ServerResponse, type IncomingMessage, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { execute, subscribe, type DocumentNode, type ExecutionArgs, type GraphQLError, type GraphQLSchema } from 'graphql';
import type { SubscribePayload } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import type { Logger } from 'pino';
import { WebSocketServer, type WebSocket } from 'ws';
import { InvalidToken } from '../../core/shared/auth/caller';
import type { RevocationList } from '../../core/shared/auth/revocations';
import type { TokenVerifier } from '../../core/shared/auth/verifier';
import { CallerLeft } from '../../core/shared/cancel';
import { DEFAULT_STREAM_HEARTBEAT_MS } from '../../core/shared/config';
import { Unauthenticated } from '../../core/shared/errors';
import { connectionAuthorization, contextFromConnection, type GraphContext } from './context';
import { formatExecutionError } from './errors';
import type { IntrospectionCache } from './introspection';
import type { GraphqlLimits } from './limits';
import { isRefusal, operationPreparer, refusal } from './prepare';
import { DEFAULT_SOCKETS_PER_ADDRESS, refuseTooManySockets, socketsPerAddress } from './ws-admission';
import { CLOSE, guardSocket, type GuardedSocket } from './ws-guard';
import { keepSocketsAlive } from './ws-keepalive';
import { forgivePeerGone } from './ws-peer-gone';
import { subscriptionUntilRevoked } from './revoked-streams';
import { operationTrace } from './trace';

export interface WebSocketOptions {
  limits: GraphqlLimits;
  /** Where the endpoint answers upgrades (default /graphql). */
  path?: string;
  /** Largest message accepted, in bytes (as the HTTP body limit). */
  maxPayloadBytes?: number;
  /** A socket that sends no connection_init within this is closed with 4408 (default 3000 ms, graphql-ws's). */
  connectionInitTimeoutMs?: number;
  /** Between WebSocket pings that keep an idle socket open and find dead ones (STREAM_HEARTBEAT_MS, default 10000 ms). */
  keepAliveMs?: number;
  /** Operations running at once on one socket (default 20). */
  maxOperationsPerSocket?: number;
  /** Answers introspection (`__schema`, `__type`); default true (`GRAPHQL_INTROSPECTION`), as over HTTP. */
  introspection?: boolean;
  /** Answers pure introspection from this cache (a graph without its own `execute`: a subgraph served alone). */
  introspectionCache?: IntrospectionCache;
  /**
   * Verifies a bearer token presented at connection_init: a present but invalid one closes the
   * socket with 4403; an absent one is let in (operations that need one refuse it themselves).
   */
  verifier?: TokenVerifier;
  /** Open sockets one client address may hold in this process (GRAPHQL_WS_MAX_SOCKETS_PER_ADDRESS, default 50); more are refused with 429. */
  maxSocketsPerAddress?: number;
  /**
   * A graph without its own `subscribe` (a subgraph served alone): its subscriptions end when their
   * caller's session is ended (revoked-streams.ts). A graph with its own ends them itself.
   */
  revocations?: Pick<RevocationList, 'watch'>;
  /** Resolves a trusted document's id to its text, or refuses the operation (the gateway's GRAPHQL_TRUSTED_DOCUMENTS). */
  trusted?: (payload: SubscribePayload) => SubscribePayload | GraphQLError;
}

/** What the HTTP server in front adds: how it resolves a client's address (TRUST_PROXY). */
export interface SocketEdge {
  addressOf?: (req: IncomingMessage) => string | undefined;
}

/** What a socket's operations run on: a subgraph's schema, or the gateway's graph with its own execution. */
export interface SocketGraph {
  schema: GraphQLSchema;
  /** Queries and mutations (graphql-js `execute` on the schema when absent). */
  execute?: (args: ExecutionArgs & { contextValue: GraphContext }) => Promise<unknown>;
  /** Subscriptions (graphql-js `subscribe` on the schema when absent). */
  subscribe?: (args: ExecutionArgs & { contextValue: GraphContext }) => Promise<unknown>;
}

export interface WebSocketEndpoint {
  /** Closes every socket (their operations end, model calls abort) and stops taking upgrades. */
  close(): Promise<void>;
}

const pathOf = (url: string | undefined) => {
  try {
    return new URL(url ?? '/', 'http://localhost').pathname;
  } catch {
    return undefined;
  }
};

/** Per socket, a signal that aborts (CallerLeft) when it closes: its client has left every operation on it. */
const closings = new WeakMap<object, AbortSignal>();
function closing(socket: { once(event: 'close', listener: () => void): unknown }): AbortSignal {
  let signal = closings.get(socket);
  if (!signal) {
    const left = new AbortController();
    socket.once('close', () => left.abort(new CallerLeft('The client closed its socket before the operation ended')));
    closings.set(socket, (signal = left.signal));
  }
  return signal;
}

/** The text each prepared document was parsed from, for the introspection cache's key. */
const sources = new WeakMap<DocumentNode, string>();

type Run = (args: ExecutionArgs) => unknown;

/** graphql-js execution with pure introspection answered from `cache`. */
const cachedExecute = (cache: IntrospectionCache | undefined) =>
  cache &&
  (async (args: ExecutionArgs) => {
    const source = sources.get(args.document);
    return (source !== undefined && (await cache.answer(args.schema, args.document, args.operationName, source))) || execute(args);
  });

/**
 * Why connection_init's credential is refused, if it is: a present `Authorization` that is not a
 * valid access token of this platform is 4403 (the reason says why, as a 401 would); one that
 * cannot be checked now (the issuer's keys unreachable) is 1013, try again later.
 */
async function credentialRefused(
  verifier: TokenVerifier,
  authorization: unknown,
  log: Logger,
): Promise<{ code: number; reason: string } | undefined> {
  if (authorization === undefined) return undefined;
  try {
    if (typeof authorization !== 'string') throw new InvalidToken('expected "Bearer <access token>"');
    await verifier.authenticate(authorization);
    return undefined;
  } catch (err) {
    if (err instanceof Unauthenticated) return { code: CLOSE.forbidden, reason: `Forbidden: ${err.message}`.slice(0, 123) };
    log.warn({ err }, "graphql-ws: connection_init's token could not be verified");
    return { code: 1013, reason: 'Try again later' };
  }
}

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
 * the work behind it. An operation whose `extensions` (or the socket's connection_init payload) carry
 * a W3C `traceparent` continues that trace (trace.ts; its context's `trace`): a gateway's subscription
 * to a remote subgraph sends one, so the subgraph's work joins the gateway's trace.
 * Refusals: an address holding maxSocketsPerAddress open sockets gets HTTP 429 instead of an upgrade
 * (ws-admission.ts); a message over its bound (connection_init 16 KiB, then the body limit) closes
 * the socket with 1009, one nesting deeper than 128 levels with 4400, both before it is parsed
 * (ws-guard.ts); a connection_init whose `Authorization` is present but not a valid access token
 * with 4403 (an absent one is let in: operations that need a caller refuse it themselves).
 */
export function serveWebSocket(
  server: Server,
  graph: SocketGraph,
  log: Logger,
  opts: WebSocketOptions,
  edge: SocketEdge = {},
): WebSocketEndpoint {
  const path = opts.path ?? '/graphql';
  const maxOperations = opts.maxOperationsPerSocket ?? 20;
  const maxPayloadBytes = opts.maxPayloadBytes ?? 1_048_576;
  const maxSockets = opts.maxSocketsPerAddress ?? DEFAULT_SOCKETS_PER_ADDRESS;
  const prepare = operationPreparer(graph.schema, opts.limits, opts.introspection !== false);
  const wss = new WebSocketServer({ noServer: true, maxPayload: maxPayloadBytes });
  const sockets = socketsPerAddress(maxSockets);
  const addressOf = (req: IncomingMessage) => edge.addressOf?.(req) ?? (req.socket.remoteAddress?.replace(/^::ffff:/, '') || 'unknown');
  const addresses = new WeakMap<IncomingMessage, string>();
  const guards = new WeakMap<WebSocket, GuardedSocket>();
  const run = (graph.execute ?? cachedExecute(opts.introspectionCache) ?? execute) as Run;
  const endpoint = useServer(
    {
      schema: graph.schema,
      execute: run as never,
      subscribe: (graph.subscribe ??
        (async (args: ExecutionArgs) =>
          subscriptionUntilRevoked(await subscribe(args), args.contextValue as GraphContext, opts.revocations))) as never,
      isProd: true,
      connectionInitWaitTimeout: opts.connectionInitTimeoutMs ?? 3000,
      onConnect: async (ctx) => {
        const ws = ctx.extra.socket;
        const refusal =
          opts.verifier && (await credentialRefused(opts.verifier, connectionAuthorization(ctx.connectionParams, ctx.extra.request), log));
        if (refusal) {
          ws.close(refusal.code, refusal.reason);
          return false;
        }
        guards.get(ws)?.acknowledged();
        return true;
      },
      onSubscribe: async (ctx, _id, sent): Promise<ExecutionArgs | readonly GraphQLError[]> => {
        if (Object.keys(ctx.subscriptions).length > maxOperations) {
          return [refusal(`At most ${maxOperations} operations run at once on one socket`, 'TOO_MANY_OPERATIONS')];
        }
        const payload = opts.trusted ? opts.trusted(sent) : sent;
        if (!('query' in payload)) return [payload];
        const document = prepare(payload);
        if (isRefusal(document)) return document;
        sources.set(document, payload.query);
        // The socket's end aborts its operations' work (a model call), also one not started yet.
        const contextValue: GraphContext = {
          ...contextFromConnection(ctx.connectionParams, ctx.extra.request, addresses.get(ctx.extra.request)),
          signal: closing(ctx.extra.socket),
        };
        contextValue.trace = operationTrace(payload.extensions, ctx.connectionParams);
        return {
          schema: graph.schema,
          document: document,
          operationName: payload.operationName,
          variableValues: payload.variables,
          contextValue,
        };
      },
      onNext: (_ctx, _id, _payload, _args, result) =>
        result.errors ? { ...result, errors: result.errors.map((e) => formatExecutionError(e, log)) } : undefined,
      onError: (_ctx, _id, _payload, errors) => errors.map((e) => formatExecutionError(e, log)),
      // An operation the client completed, or whose socket closed, before it ended (graphql-ws has
      // taken it off the socket's list by then; one that ended on its own is still there): the client
      // left, as an HTTP client that closes its connection does, a 499 at info level, once.
      onComplete: (ctx, id, payload) => {
        if (!(id in ctx.subscriptions))
          log.info(
            { id, operationName: payload.operationName ?? undefined, status: 499 },
            'graphql-ws: the client left before the operation ended',
          );
      },
    },
    wss,
    0,
  ); // graphql-ws's own keep-alive mistakes a busy event loop for dead peers
  const stopPings = keepSocketsAlive(wss, opts.keepAliveMs ?? DEFAULT_STREAM_HEARTBEAT_MS);

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (pathOf(req.url) === path && req.headers.upgrade?.toLowerCase() === 'websocket') {
      const address = addressOf(req);
      const release = sockets.take(address);
      if (!release) return refuseTooManySockets(socket, maxSockets);
      // The TCP socket closes however the upgrade ends (refused handshake, client gone, closed socket).
      socket.once('close', release);
      addresses.set(req, address);
      wss.handleUpgrade(req, socket, head, (ws) => {
        guards.set(ws, guardSocket(ws, { maxPayloadBytes, log }));
        wss.emit('connection', forgivePeerGone(ws), req);
      });
    } else {
      answerAsHttp(server, req, socket);
    }
  };
  server.on('upgrade', onUpgrade);

  return {
    async close() {
      server.off('upgrade', onUpgrade);
      stopPings();
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
