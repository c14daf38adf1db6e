import type { Ctx } from '../shared/context';
import type { ChatCall, Metered, ModelsService } from './service';

/**
 * What every edge of the gateway does around a call's wire format (a vendor body, GraphQL
 * arguments): reading the request is part of the call, so a request it refuses (a malformed body,
 * `n` != 1) is recorded in usage like any call that reached the model.
 */
export async function refusing<T, C>(models: ModelsService<C>, m: Metered, ctx: Ctx<C>, read: () => T | Promise<T>): Promise<T> {
  const startedAt = Date.now();
  try {
    return await read();
  } catch (err) {
    models.refused({ ...m, error: err, startedAt }, ctx);
    throw err;
  }
}

/** The whole answer of a non-streamed call. */
export async function collect(call: ChatCall) {
  let text = '';
  for await (const piece of call.pieces) text += piece;
  return { text, ...(await call.done) };
}
