import type { Response } from 'express';
import type { PlatformError } from '../../core/shared/errors';
import { describeError } from '../../core/shared/telemetry/recent-errors';
import { STATUS } from './errors';

/**
 * A server-side failure noted on its response, for the process's recent errors
 * (rest/shared/server-errors.ts records it once the response is over): by the error mapping when
 * it answers a 5xx, and by the stream writer when a stream that had started fails midway.
 */
export interface Failure {
  code: string;
  message: string;
  /** The answer had started (200): the failure ended a stream. */
  midway?: boolean;
}

const KEY = 'serverFailure';

/** Whether an error is the server's (or its upstream's) fault: a 5xx. */
export const isServerError = (e: PlatformError): boolean => STATUS[e.kind] >= 500;

/** Notes `e` on the response when it is the server's fault; the caller's own mistakes are not noted. */
export function noteFailure(res: Response, e: PlatformError, midway = false): void {
  if (!isServerError(e)) return;
  // An internal error's own message is never sent; what caused it is what an operator needs.
  const message = e.expose || !(e.cause instanceof Error) ? e.message : describeError(e.cause);
  res.locals[KEY] = { code: e.code ?? e.kind, message, ...(midway ? { midway } : {}) } satisfies Failure;
}

export const failureOf = (res: Response): Failure | undefined => res.locals[KEY] as Failure | undefined;
