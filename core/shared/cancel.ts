import { BadRequest } from './errors';

/**
 * A caller who leaves (an HTTP client that closes its connection before the answer is complete, a
 * subscriber that completes or drops its subscription) is nobody's failure: the call stops, its
 * usage records 499, and the access log says 499 at info level, once. Never an error line or a
 * stack: any caller could otherwise fill the error logs and page whoever watches them.
 */

/** Why a call was aborted: its caller went away. A 400-kind error, so a transport that still answers never shows a 500. */
export class CallerLeft extends BadRequest {
  constructor(message = 'The caller left before the answer was complete') {
    super(message, { code: 'caller_left' });
  }
}

/**
 * Whether an error is a call stopping because it was aborted: CallerLeft, or what the abort surfaced
 * as on the way (an AbortError DOMException, 'This operation was aborted'; undici's
 * RequestAbortedError), itself or as the cause of another. Only an abort: a failure that merely
 * happened while the caller was leaving is still an error.
 */
export function isAbort(err: unknown): boolean {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 8; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof CallerLeft) return true;
    const { name, code } = e as { name?: unknown; code?: unknown };
    if (name === 'AbortError' || name === 'RequestAbortedError' || code === 'ABORT_ERR' || code === 'UND_ERR_ABORTED') return true;
  }
  return false;
}

/** Whether `err` ended a call because its caller left: an abort (isAbort) of a call whose caller is gone (its signal aborted). */
export const leftBy = (err: unknown, signal: AbortSignal | undefined): boolean =>
  signal?.aborted === true && (err === signal.reason || isAbort(err));
