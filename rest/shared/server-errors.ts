import type { RequestHandler } from 'express';
import type { RecentErrors } from '../../core/shared/telemetry/recent-errors';
import { failureOf } from '../../edge/http/failures';
import { routeOf } from '../../edge/http/telemetry';
import { requestIdOf } from './http-errors';

/**
 * Records each request that ended in a server-side failure among the process's recent errors: a
 * 5xx answer, or a stream that failed after it started (both noted by edge/http/failures.ts, with
 * the error's code and message; a 5xx written otherwise is recorded by its status). `serviceOf`
 * names the service a path belongs to. A caller who left (499) is nobody's failure, and /readyz
 * saying "not ready" is no failure either.
 */
export const serverErrors =
  (errors: RecentErrors, serviceOf: (path: string) => string): RequestHandler =>
  (req, res, next) => {
    res.once('close', () => {
      if (!res.writableFinished) return;
      const failure = failureOf(res);
      if (!failure?.midway && res.statusCode < 500) return;
      const path = req.originalUrl.split('?')[0];
      // A 503 from /readyz is its answer (not ready yet, or stopping), not a failure.
      if (path === '/readyz' && !failure) return;
      errors.record({
        service: serviceOf(path),
        where: `${req.method} ${routeOf(req, res)}`,
        code: failure?.code ?? `http_${res.statusCode}`,
        message: failure?.message ?? `answered HTTP ${res.statusCode}`,
        requestId: requestIdOf(req),
      });
    });
    next();
  };
