import express, { Router, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import type { z } from 'zod';
import { MethodNotAllowed, NotFound } from '../core/errors';
import { docsPage } from './docs';
import { httpErrors, type ErrorBody } from './http-errors';
import { buildOpenApi } from './openapi';
import { parseRequest, type InputSpec } from './validation';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface ResponseSpec {
  description: string;
  schema?: z.ZodType;
  contentType?: string;
}

/** One REST operation: its contract (for validation and OpenAPI) and its thin handler. */
export interface Route {
  method: Method;
  /** Express path relative to the service prefix, e.g. `/oauth/connect/token`. */
  path: string;
  summary: string;
  description?: string;
  tags?: string[];
  input?: InputSpec;
  responses: Record<number, ResponseSpec>;
  /** Returns the JSON body of a 200, or undefined when it wrote the response itself. */
  handle(input: any, req: Request, res: Response): Promise<unknown>;
}

/** A service's REST face: everything needed to mount it and to describe it. */
export interface RestService {
  title: string;
  version: string;
  prefix: string;
  routes: Route[];
  errorBody: ErrorBody;
  /** Named schemas to list under components (the spec's `Msg`, `TokenRequest`, ...). */
  schemas?: Record<string, z.ZodType>;
}

export interface MountOptions {
  log: Logger;
  bodyLimitBytes: number;
}

export const define = (route: Route): Route => route;

/**
 * Builds a service's router: body parsers (so their errors take the service's format), the routes,
 * 405 with `Allow` for a known path asked with another method, `openapi.json`, `docs`, and 404 for
 * any other path under the prefix.
 */
export function serviceRouter(svc: RestService, opts: MountOptions): Router {
  const router = Router();
  router.use(express.json({ limit: opts.bodyLimitBytes, strict: false }));
  router.use(express.urlencoded({ limit: opts.bodyLimitBytes, extended: false, parameterLimit: 200 }));

  const methods = new Map<string, Method[]>();
  for (const route of svc.routes) {
    methods.set(route.path, [...(methods.get(route.path) ?? []), route.method]);
    router[route.method](route.path, async (req, res) => {
      const input = route.input ? parseRequest(route.input, req) : {};
      const body = await route.handle(input, req, res);
      if (!res.headersSent) res.json(body);
    });
  }
  const openapi = buildOpenApi(svc);
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
