import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import { traceFields } from '../../core/shared/telemetry/tracing';
import { traceOf } from '../../edge/http/telemetry';

/**
 * One log line per request: method, path, status, duration, request id, and with tracing on its
 * trace and span ids. Never the query string or the body, which carry client secrets, passwords and tokens.
 */
export const accessLog = (log: Logger): RequestHandler => (req, res, next) => {
  if (!log.isLevelEnabled('info')) return next();
  const start = process.hrtime.bigint();
  res.once('finish', () => {
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    const line = { reqId: (req as typeof req & { id?: string }).id, method: req.method, path: req.originalUrl.split('?')[0], status: res.statusCode, ms: Math.round(ms * 10) / 10, ...traceFields(traceOf(res)) };
    if (res.statusCode >= 500) log.error(line, 'request');
    else log.info(line, 'request');
  });
  next();
};
