import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import { traceFields } from '../../core/shared/telemetry/tracing';
import { traceOf } from '../../edge/http/telemetry';

/**
 * One log line per request: method, path, status, duration, request id, and with tracing on its
 * trace and span ids. Never the query string or the body, which carry client secrets, passwords and tokens.
 * A caller who left before the answer was complete is status 499 (nginx's "client closed request"),
 * at info level: its leaving is nobody's failure. A 5xx answer is an error.
 */
export const accessLog =
  (log: Logger): RequestHandler =>
  (req, res, next) => {
    if (!log.isLevelEnabled('info')) return next();
    const start = process.hrtime.bigint();
    // 'close' comes once for every response: after 'finish' when it was sent whole, alone when the caller left.
    res.once('close', () => {
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      const status = res.writableFinished ? res.statusCode : 499;
      const line = {
        reqId: (req as typeof req & { id?: string }).id,
        method: req.method,
        path: req.originalUrl.split('?')[0],
        status,
        ms: Math.round(ms * 10) / 10,
        ...traceFields(traceOf(res)),
      };
      if (status >= 500) log.error(line, 'request');
      else log.info(line, 'request');
    });
    next();
  };
