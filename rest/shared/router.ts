import express, { Router, type RequestHandler, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import { authorize, type Caller } from '../../core/shared/auth/caller';
import { CallerLeft } from '../../core/shared/cancel';
import { DEFAULT_STREAM_HEARTBEAT_MS } from '../../core/shared/config';
import { noCredentials, type CredentialTools, type Presented } from '../../core/shared/auth/credentials';
import type { TokenVerifier } from '../../core/shared/auth/verifier';
import type { Ctx } from '../../core/shared/context';
import { MethodNotAllowed, NotFound } from '../../core/shared/errors';
import { clientAddressOf } from '../../edge/http/client-address';
import { jsonBody } from '../../edge/http/json-body';
import { routeMatched, traceOf } from '../../edge/http/telemetry';
import { docsPage } from './docs';
import { httpErrors, requestIdOf } from './http-errors';
import { multipart, uploadOf } from './multipart';
import { buildOpenApi } from './openapi';
import type { Method, RestService, Route } from './routes';
import { parseRequest } from './validation';

export interface MountOptions {
  log: Logger;
  bodyLimitBytes: number;
  /** Verifies bearer tokens for services whose callers present them. */
  verifier?: TokenVerifier;
  /** PUBLIC_URL: offered as a server in OpenAPI, after the page's own origin. */
  publicUrl?: string;
  /** Between heartbeats of a streamed answer (STREAM_HEARTBEAT_MS), handed to handlers; 10 s when absent. */
  heartbeatMs?: number;
}

/** The call's context; its abort signal is made only when a handler asks for it (streams do). */
function contextOf(req: Request, res: Response, caller: unknown): Ctx<unknown> {
  let signal: AbortSignal | undefined;
  return {
    caller,
    clientAddress: clientAddressOf(req),
    requestId: requestIdOf(req),
    trace: traceOf(res),
    get signal() {
      if (!signal) {
        const controller = new AbortController();
        // Only a caller that leaves before the answer is complete aborts.
        if (res.closed && !res.writableFinished) controller.abort(new CallerLeft());
        else res.once('close', () => !res.writableFinished && controller.abort(new CallerLeft()));
        signal = controller.signal;
      }
      return signal;
    },
  };
}

/** What a request presents to the service's credentials: its headers, or where the route says its clients put them. */
function presentedBy(req: Request, route: Route, body?: unknown): Presented {
  const given = route.credential?.(req);
  return { header: (name) => (given && name in given ? given[name] : req.get(name)), body, address: clientAddressOf(req) };
}

/**
 * Builds a service's router: per route, the caller established as the service declares (before any
 * body is read, unless the credential is in the body), body parsers (only where it takes input, so
 * their errors take the service's format and a route without input ignores any body), validation
 * and the handler; 405 with `Allow` for a known path asked with another method; `openapi.json`,
 * `docs`; 404 for any other path under the prefix.
 */
export function serviceRouter(svc: RestService, opts: MountOptions): Router {
  const router = Router();
  const heartbeatMs = opts.heartbeatMs ?? DEFAULT_STREAM_HEARTBEAT_MS;
  const form = express.urlencoded({ limit: opts.bodyLimitBytes, extended: false, parameterLimit: 200 });
  const parsers: RequestHandler[] = [jsonBody({ limit: opts.bodyLimitBytes, strict: false, type: svc.jsonTypes }), form];
  const untypedParsers: RequestHandler[] = [
    jsonBody({ limit: opts.bodyLimitBytes, strict: false, type: svc.jsonTypes, untyped: true }),
    form,
  ];
  const serviceCredentials = svc.credentials ?? noCredentials;
  const tools = (): CredentialTools => {
    if (!opts.verifier) throw new Error(`${svc.prefix} needs a token verifier`);
    return { verifier: opts.verifier, audience: svc.audience };
  };
  const methods = new Map<string, Method[]>();
  for (const route of svc.routes) {
    methods.set(route.path, [...(methods.get(route.path) ?? []), route.method]);
    const uploads = route.upload ? [multipart(route.upload)] : [];
    const credentials = route.credentials ?? serviceCredentials;
    const resolves = !route.public && credentials.kind !== 'none';
    // The caller is established before any body is read: a stranger cannot make the service buffer an upload.
    const early: RequestHandler[] =
      resolves && !credentials.inBody
        ? [
            async (req, res, next) => {
              const caller = await credentials.resolve(presentedBy(req, route), tools());
              res.locals.caller = route.auth?.roles ? authorize(caller as Caller, { roles: route.auth.roles }) : caller;
              next();
            },
          ]
        : [];
    if (route.before) {
      const before = route.before;
      early.push(async (req, res, next) => {
        res.locals.checked = await before(req, contextOf(req, res, res.locals.caller));
        next();
      });
    }
    const template = `${svc.prefix}${route.path}`;
    const errorFormat: RequestHandler = (_req, res, next) => {
      routeMatched(res, template);
      if (route.errorBody) res.locals.errorBody = route.errorBody;
      next();
    };
    const bodies = !route.input ? [] : route.untypedJson ? untypedParsers : parsers;
    router[route.method](route.path, errorFormat, ...early, ...bodies, ...uploads, async (req, res) => {
      const input = (route.input && !uploadOf(res) ? parseRequest(route.input, req) : {}) as { body?: unknown };
      const caller =
        resolves && credentials.inBody
          ? await credentials.resolve(presentedBy(req, route, input.body), tools())
          : (res.locals.caller as unknown);
      const body = await route.handle(input, { ctx: contextOf(req, res, caller), req, res, checked: res.locals.checked, heartbeatMs });
      if (!res.headersSent) res.json(body);
    });
  }
  const openapi = buildOpenApi(svc, { publicUrl: opts.publicUrl });
  router.get('/openapi.json', (_req, res) => {
    routeMatched(res, `${svc.prefix}/openapi.json`);
    res.json(openapi);
  });
  router.get('/docs', (_req, res) => {
    routeMatched(res, `${svc.prefix}/docs`);
    res.type('html').send(docsPage(svc.title, `${svc.prefix}/openapi.json`));
  });
  methods.set('/openapi.json', ['get']);
  methods.set('/docs', ['get']);

  for (const [path, allowed] of methods) {
    const allow = allowed.map((m) => m.toUpperCase());
    if (allow.includes('GET')) allow.push('HEAD');
    router.all(path, () => {
      throw new MethodNotAllowed(allow);
    });
  }
  router.use(() => {
    throw new NotFound('Not Found');
  });
  router.use(httpErrors(opts.log, svc.errorBody));
  return router;
}
