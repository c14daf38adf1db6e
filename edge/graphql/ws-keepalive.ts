import type { WebSocket, WebSocketServer } from 'ws';

/** A socket is given up on only after this long without a pong, however often it is pinged. */
export const DEAD_AFTER_MIN_MS = 30_000;

/**
 * Pings every socket of `wss` every `everyMs` (keeping idle sockets open through proxies) and
 * terminates one that has not answered a ping for max(3 × everyMs, 30 s). graphql-ws's own
 * keep-alive terminates a socket whose pong has not been *processed* by the next ping: a busy
 * event loop (fifty answers being written at once) then looks like fifty dead peers, and healthy
 * clients were cut with 1006. Missing a pong must mean the peer is gone, not that we were busy.
 */
export function keepSocketsAlive(wss: WebSocketServer, everyMs: number, deadAfter = Math.max(3 * everyMs, DEAD_AFTER_MIN_MS)): () => void {
  if (!(everyMs > 0) || !Number.isFinite(everyMs)) return () => undefined;
  const lastHeard = new WeakMap<WebSocket, number>();
  const heard = (ws: WebSocket) => () => lastHeard.set(ws, Date.now());
  wss.on('connection', (ws: WebSocket) => {
    lastHeard.set(ws, Date.now());
    ws.on('pong', heard(ws));
    ws.on('message', heard(ws)); // any frame proves the peer is there
  });
  const timer = setInterval(() => {
    const now = Date.now();
    for (const ws of wss.clients) {
      if (now - (lastHeard.get(ws) ?? now) > deadAfter) ws.terminate();
      else if (ws.readyState === ws.OPEN) ws.ping();
    }
  }, everyMs);
  timer.unref();
  const stop = () => clearInterval(timer);
  wss.once('close', stop);
  return stop;
}
