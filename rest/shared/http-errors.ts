import type { ErrorRequestHandler, Request, Response } from 'express';
import type { Logger } from 'pino';
import { isBearerError, type BearerError } from '../../core/shared/auth/caller';
import { isAbort } from '../../core/shared/cancel';
import { InternalError, type PlatformError } from '../../core/shared/errors';
import { traceFields } from '../../core/shared/telemetry/tracing';
import { STATUS, toPlatformError } from '../../edge/http/errors';
import { noteFailure } from '../../edge/http/failures';
import { traceOf } from '../../edge/http/telemetry';

/** How one service words its error bodies (the status is decided here, not there). */
export type ErrorBody = (err: PlatformError, status: number, res?: Response) => unknown;

/** DECISIONS: `{"detail": ...}`; a 422's detail is the list of issues. */
export const detailBody: ErrorBody = (err) => ({ detail: 'issues' in err ? err.issues : err.message });

/** RFC 6750 §3: the challenge of a bearer-protected resource. */
export function bearerChallenge(e: BearerError): string {
  const realm = 'Bearer realm="platform"';
  if (e.bearerError === null) return realm;
  const extra = 'required' in e ? `, scope="${e.required.join(' ')}"` : '';
  return `${realm}, error="${e.bearerError}", error_description="${e.message.replace(/["\\]/g, '')}"${extra}`;
}

/** Express error middleware for one service; keep all four parameters (express counts them). */
export const httpErrors =
  (log: Logger, body: ErrorBody = detailBody): ErrorRequestHandler =>
  (err, req, res, _next) => {
    // A call stopped because its caller left: nobody to answer and nothing wrong (the access log says 499).
    if (callerGone(res) && isAbort(err)) return;
    const e = toPlatformError(err);
    const status = STATUS[e.kind];
    noteFailure(res, e);
    if (!e.expose) {
      log.error({ err: e.cause ?? e, reqId: requestIdOf(req), path: req.path, ...traceFields(traceOf(res)) }, 'unhandled error');
    }
    if (e.kind === 'unavailable')
      log.warn(
        { err: (e.cause as Error | undefined)?.message, reqId: requestIdOf(req), path: req.path, ...traceFields(traceOf(res)) },
        'a store is unreachable: 503',
      );
    if (res.headersSent) return void res.end();
    if ('allow' in e && Array.isArray(e.allow)) res.setHeader('Allow', e.allow.join(', '));
    if (isBearerError(e)) res.setHeader('WWW-Authenticate', bearerChallenge(e));
    if ('retryAfterSeconds' in e && typeof e.retryAfterSeconds === 'number') res.setHeader('Retry-After', String(e.retryAfterSeconds));
    const shown = e.expose ? e : new InternalError('Internal server error');
    const format = (res.locals.errorBody as ErrorBody | undefined) ?? body;
    res.status(status).json(format(shown, status, res));
  };

export const requestIdOf = (req: Request): string | undefined => (req as Request & { id?: string }).id;

/** The caller closed the connection (or the stream) before its answer was complete. */
export const callerGone = (res: Response): boolean => !res.writableFinished && (res.closed || res.destroyed);
