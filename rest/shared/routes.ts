import express, { Router, type Request, type RequestHandler, type Response } from 'express';
import type { Logger } from 'pino';
import type { z } from 'zod';
import { authorize } from '../../core/shared/auth/caller';
import type { TokenVerifier } from '../../core/shared/auth/verifier';
import type { CallContext } from '../../core/shared/context';
import { MethodNotAllowed, NotFound } from '../../core/shared/errors';
import { clientAddressOf } from '../../edge/http/client-address';
import { docsPage } from './docs';
import { httpErrors, requestIdOf, type ErrorBody } from './http-errors';
import { jsonBody } from '../../edge/http/json-body';
import { buildOpenApi, type Json, type OperationDocs, type ServiceDocs } from './openapi';
import { multipart, uploadOf, type UploadLimits } from './multipart';
import { parseRequest, type InputOf, type InputSpec } from './validation';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface ResponseSpec {
  description: string;
  schema?: z.ZodType;
  contentType?: string;
  /** Several media types, each with its schema (a JSON answer or an event stream); replaces schema/contentType. */
  content?: Record<string, z.ZodType | Json | undefined>;
}

/** What a handler gets besides its input: the call's context and, for streams, the raw exchange. */
export interface RouteContext {
  call: CallContext;
  req: Request;
  res: Response;
  /** What the route's `before` returned. */
  checked?: unknown;
}

/** One REST operation: its contract (for validation, auth and OpenAPI) and its thin handler. */
export interface Route<I extends InputSpec = InputSpec> {
  method: Method;
  /** Express path relative to the service prefix, e.g. `/oauth/connect/token`. */
  path: string;
  summary: string;
  description?: string;
  tags?: string[];
  input?: I;
  /**
   * Also takes `multipart/form-data` (one file): the handler then finds it with `uploadOf(res)` and
   * `input` is not validated (the handler validates the metadata part itself).
   */
  upload?: UploadLimits;
  /** This route's error body, when it differs from its service's (a vendor's wire format). */
  errorBody?: ErrorBody;
  /** Needs `Authorization: Bearer` with a token for this service and these roles (401/403 otherwise). */
  auth?: { roles?: readonly string[] };
  /**
   * Checks the caller another way (an API key) before any body is read; what it returns is the
   * handler's `ctx.checked`. A throw answers in the route's error format.
   */
  before?: (req: Request) => unknown;
  responses: Record<number, ResponseSpec>;
  /** What OpenAPI says beyond `input` and `responses` (examples, security, a documented path); several for one path that serves several operations. */
  docs?: OperationDocs | readonly OperationDocs[];
  /** Returns the JSON body of a 200, or undefined when it wrote the response itself. */
  handle: (input: InputOf<I>, ctx: RouteContext) => Promise<unknown>;
}

/** Checks a route against its own schemas: the handler's input type is inferred from `input`. */
export const define = <const I extends InputSpec = Record<never, never>>(route: Route<I>): Route => route as unknown as Route;

/** A service's REST face: everything needed to mount it and to describe it. */
export interface RestService {
  title: string;
  version: string;
  prefix: string;
  routes: Route[];
  errorBody: ErrorBody;
  /** RFC 9068 audience its protected routes require of a token. */
  audience?: string;
  /** Named schemas to list under components (the spec's `Msg`, `TokenRequest`, ...). */
  schemas?: Record<string, z.ZodType>;
  /** Its clients speak HTTP/2 without TLS (h2c, the AWS SDK's default): the server takes it too. */
  http2Cleartext?: boolean;
  /** Content types read as JSON bodies (default `application/json`). */
  jsonTypes?: string[];
  /** OpenAPI: how callers authenticate, the description of the document. */
  docs?: ServiceDocs;
}

export interface MountOptions {
  log: Logger;
  bodyLimitBytes: number;
  /** Verifies bearer tokens for routes that declare `auth`. */
  verifier?: TokenVerifier;
  /** PUBLIC_URL: offered as a server in OpenAPI, after the page's own origin. */
  publicUrl?: string;
}

/** The call's context; its abort signal is made only when a handler asks for it (streams do). */
function contextOf(req: Request, res: Response): CallContext {
  let signal: AbortSignal | undefined;
  return {
    clientAddress: clientAddressOf(req),
    requestId: requestIdOf(req),
    get signal() {
      if (!signal) {
        const controller = new AbortController();
        // Only a caller that leaves before the answer is complete aborts.
        if (res.closed && !res.writableFinished) controller.abort();
        else res.once('close', () => !res.writableFinished && controller.abort());
        signal = controller.signal;
      }
      return signal;
    },
  };
}

/**
 * Builds a service's router: per route, body parsers (only where it takes input, so its errors take
 * the service's format and a route without input ignores any body), the caller check, validation
 * and the handler; 405 with `Allow` for a known path asked with another method; `openapi.json`,
 * `docs`; 404 for any other path under the prefix.
 */
export function serviceRouter(svc: RestService, opts: MountOptions): Router {
  const router = Router();
  const parsers: RequestHandler[] = [
    jsonBody({ limit: opts.bodyLimitBytes, strict: false, type: svc.jsonTypes }),
    express.urlencoded({ limit: opts.bodyLimitBytes, extended: false, parameterLimit: 200 }),
  ];
  const methods = new Map<string, Method[]>();
  for (const route of svc.routes) {
    methods.set(route.path, [...(methods.get(route.path) ?? []), route.method]);
    const uploads = route.upload ? [multipart(route.upload)] : [];
    // The caller is checked before any body is read: a stranger cannot make the service buffer an upload.
    const authenticate: RequestHandler[] = route.auth ? [async (req, res, next) => {
      if (!opts.verifier) throw new Error(`${svc.prefix}${route.path} needs a token verifier`);
      res.locals.caller = authorize(await opts.verifier.authenticate(req.get('authorization')), { audience: svc.audience, roles: route.auth!.roles });
      next();
    }] : [];
    if (route.before) {
      const before = route.before;
      authenticate.push(async (req, res, next) => {
        res.locals.checked = await before(req);
        next();
      });
    }
    const errorFormat: RequestHandler[] = route.errorBody ? [(_req, res, next) => {
      res.locals.errorBody = route.errorBody;
      next();
    }] : [];
    router[route.method](route.path, ...errorFormat, ...authenticate, ...(route.input ? parsers : []), ...uploads, async (req, res) => {
      const call = contextOf(req, res);
      call.caller = res.locals.caller as CallContext['caller'];
      const input = route.input && !uploadOf(res) ? parseRequest(route.input, req) : {};
      const body = await route.handle(input as InputOf<InputSpec>, { call, req, res, checked: res.locals.checked });
      if (!res.headersSent) res.json(body);
    });
  }
  const openapi = buildOpenApi(svc, { publicUrl: opts.publicUrl });
  router.get('/openapi.json', (_req, res) => void res.json(openapi));
  router.get('/docs', (_req, res) => void res.type('html').send(docsPage(svc.title, `${svc.prefix}/openapi.json`)));
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
