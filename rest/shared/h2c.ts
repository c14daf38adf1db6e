import http, { type Server } from 'node:http';
import http2 from 'node:http2';
import type { AddressInfo, Socket } from 'node:net';

/**
 * `@aws-sdk/client-bedrock-runtime` sends every call over HTTP/2 (its default handler is
 * NodeHttp2Handler); to an `http://` endpoint that is HTTP/2 with prior knowledge (h2c), which a
 * node:http server answers with a protocol error. `acceptH2c` lets the platform's server take it:
 * a connection that opens with the HTTP/2 preface gets an HTTP/2 session, whose streams are relayed
 * to the same server over loopback HTTP/1.1 (express cannot serve http2's compatibility objects);
 * answers flow back as they come, so event streams stream. Other connections are untouched.
 * Behind a TLS terminator, that proxy must offer h2 (ALPN) to the SDK instead.
 */
const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');
// Connection-specific headers: HTTP/2 forbids them, HTTP/1.1 hops must not forward them.
const HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'http2-settings', 'te', 'host']);
const ACCEPTING = Symbol('accepting h2c');

/** Calls `route` with whether the connection opened with the HTTP/2 preface, the bytes read put back. */
function sniff(socket: Socket, timeoutMs: number, route: (h2: boolean) => void) {
  let seen = Buffer.alloc(0);
  const fail = () => socket.destroy();
  const onData = (chunk: Buffer) => {
    seen = Buffer.concat([seen, chunk]);
    const n = Math.min(seen.length, PREFACE.length);
    const h2 = seen.subarray(0, n).equals(PREFACE.subarray(0, n));
    if (h2 && n < PREFACE.length) return;
    socket.off('data', onData).off('error', fail).setTimeout(0);
    socket.pause();
    socket.unshift(seen);
    route(h2);
  };
  // Until someone owns it: a silent or broken connection is dropped, never left open or crashing.
  socket.on('data', onData).on('error', fail).setTimeout(timeoutMs, fail);
}

function loopback(server: Server) {
  const a = server.address() as AddressInfo;
  const any = a.address === '::' || a.address === '0.0.0.0';
  return { host: any ? (a.family === 'IPv6' ? '::1' : '127.0.0.1') : a.address, port: a.port };
}

function relay(server: Server, agent: http.Agent, stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders) {
  const out: http.OutgoingHttpHeaders = {};
  for (const [k, v] of Object.entries(headers)) if (!k.startsWith(':') && !HOP.has(k) && v !== undefined) out[k] = v;
  if (headers[':authority']) out.host = headers[':authority'];
  // As any proxy does, so a platform that trusts loopback (TRUST_PROXY) still sees the caller's address.
  const peer = stream.session?.socket.remoteAddress;
  if (peer) out['x-forwarded-for'] = [headers['x-forwarded-for'], peer].filter(Boolean).join(', ');
  let complete = false;
  const req = http.request({ ...loopback(server), agent, method: headers[':method'], path: headers[':path'], headers: out }, (res) => {
    res.once('end', () => (complete = true));
    if (stream.destroyed) return void res.destroy();
    const back: http2.OutgoingHttpHeaders = { ':status': res.statusCode ?? 502 };
    for (const [k, v] of Object.entries(res.headers)) if (!HOP.has(k) && v !== undefined) back[k] = v;
    stream.respond(back);
    res.pipe(stream);
  });
  req.on('error', () => {
    if (stream.destroyed) return;
    if (stream.headersSent) return void stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR);
    stream.respond({ ':status': 502 });
    stream.end();
  });
  // The caller went away: so does the relayed request (the handler's signal aborts the model call).
  stream.on('error', () => undefined).once('close', () => complete || req.destroy());
  stream.pipe(req);
}

/** Lets `server` (node:http, serving HTTP/1.1) take h2c prior-knowledge connections too. Idempotent. */
export function acceptH2c(server: Server): void {
  const marked = server as Server & { [ACCEPTING]?: true };
  if (marked[ACCEPTING]) return;
  marked[ACCEPTING] = true;
  const h1 = server.listeners('connection') as ((socket: Socket) => void)[];
  const h2 = http2.createServer();
  const agent = new http.Agent({ keepAlive: true });
  const sessions = new Set<http2.ServerHttp2Session>();
  h2.on('session', (s) => void sessions.add(s.once('close', () => sessions.delete(s))));
  h2.on('stream', (stream, headers) => relay(server, agent, stream, headers));
  // Connections still being sniffed belong to nobody yet: closing the server must end them too.
  const sniffing = new Set<Socket>();
  server.removeAllListeners('connection');
  server.on('connection', (socket: Socket) => {
    sniffing.add(socket);
    socket.once('close', () => sniffing.delete(socket));
    sniff(socket, server.headersTimeout || 60_000, (isH2) => {
      sniffing.delete(socket);
      if (isH2) return void h2.emit('connection', socket);
      for (const listener of h1) listener.call(server, socket);
      socket.resume();
    });
  });
  // close() ends idle HTTP/1.1 connections itself (closeIdleConnections); the HTTP/2 sessions and the relay's are ours.
  const closeIdle = server.closeIdleConnections.bind(server);
  server.closeIdleConnections = () => {
    closeIdle();
    for (const socket of sniffing) socket.destroy();
    agent.destroy();
    for (const s of sessions) s.close();
  };
  const closeAll = server.closeAllConnections.bind(server);
  server.closeAllConnections = () => {
    closeAll();
    for (const socket of sniffing) socket.destroy();
    agent.destroy();
    for (const s of sessions) s.destroy();
  };
}
