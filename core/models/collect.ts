import type { ChatCall } from './service';

/** The whole answer of a non-streamed call. */
export async function collect(call: ChatCall) {
  let text = '';
  for await (const piece of call.pieces) text += piece;
  return { text, ...(await call.done) };
}
