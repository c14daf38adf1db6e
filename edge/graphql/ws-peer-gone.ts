import { WebSocket } from 'ws';

/** Errors of a write to a peer that has gone (dropped its connection without a close frame). */
const GONE = new Set(['EPIPE', 'ECONNRESET', 'ERR_STREAM_DESTROYED', 'ERR_STREAM_WRITE_AFTER_END']);

/**
 * `ws` with its sends forgiving a peer that left: a send whose write fails because the socket is
 * no longer open or the peer is gone reports success. graphql-ws takes any failed send for a fault
 * of the server: it writes "Internal error occurred during message handling" with the error's stack
 * to console.error and closes the (already dead) socket with 4500, for every client that merely
 * left while its answer was written. Its close handler still runs and ends the operations. Any
 * other failure is passed on as it was.
 */
export function forgivePeerGone(ws: WebSocket): WebSocket {
  const send = ws.send.bind(ws) as (data: unknown, ...rest: unknown[]) => void;
  (ws as { send: unknown }).send = (data: unknown, ...rest: unknown[]) => {
    const last = rest.at(-1);
    if (typeof last !== 'function') return send(data, ...rest);
    const done = last as (err?: Error) => void;
    return send(data, ...rest.slice(0, -1), (err?: Error) => {
      const gone = err && (ws.readyState !== WebSocket.OPEN || GONE.has((err as NodeJS.ErrnoException).code ?? ''));
      done(gone ? undefined : err);
    });
  };
  return ws;
}
