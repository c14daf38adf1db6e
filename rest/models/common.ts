import type { Response } from 'express';
import type { ChatCall, Metered, ModelsService } from '../../core/models/service';

/**
 * What every provider route does around its vendor's wire format: records a call it refuses before
 * the model (a malformed body), reads a whole answer, and says where an answer came from.
 */
export async function refusing<T>(models: ModelsService, m: Metered, run: () => T | Promise<T>): Promise<T> {
  const startedAt = Date.now();
  try {
    return await run();
  } catch (err) {
    models.refused({ ...m, error: err, startedAt });
    throw err;
  }
}

/** The whole answer of a non-streamed call. */
export async function collect(call: ChatCall) {
  let text = '';
  for await (const piece of call.pieces) text += piece;
  return { text, ...(await call.done) };
}

/** `x-cache: HIT|MISS|BYPASS`, and `x-guard` naming what the guardrails redacted. */
export function gatewayHeaders(res: Response, call: Pick<ChatCall, 'cache' | 'guard'>) {
  res.set('x-cache', call.cache);
  if (call.guard.startsWith('redacted')) res.set('x-guard', call.guard);
}
