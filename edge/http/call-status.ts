import type { CallEnd } from '../../core/shared/call-end';
import { STATUS, toPlatformError } from './errors';

/** nginx's "client closed request": the caller left before the answer was complete (core/shared/cancel.ts). */
const CALLER_LEFT = 499;

/**
 * The status a model call's usage row keeps (and its metrics and span): what the caller got over
 * HTTP, 200 for an answer, 499 when the caller left, an error's status (STATUS) when it failed.
 */
export const callStatus = (end: CallEnd): number =>
  end === 'ok' ? 200 : end === 'left' ? CALLER_LEFT : STATUS[toPlatformError(end.failed).kind];
