import { WebSocket } from 'ws';
import { telemetryGraph, until, type TelemetryGraph } from './telemetry-graph';

/**
 * Sixty graphql-ws clients that each drop their socket (no close handshake) a moment after sending
 * an operation, while the gateway writes the answer: a peer gone mid-write is no server failure.
 * graphql-ws reports a failed send as "Internal error occurred during message handling" on
 * console.error (with the EPIPE's stack) and closes with 4500; found by this very attack, 60 such
 * lines for 60 clients. Nothing is written now, and the gateway keeps answering.
 */
let g: TelemetryGraph;
beforeAll(async () => {
  g = await telemetryGraph();
});
afterAll(() => g?.stop());

const wsUrl = () => `${g.url.replace(/^http/, 'ws')}/graphql`;

/** Opens a socket, starts `query`, then drops the socket `afterMs` later (terminate: no close frame). */
const leaver = (query: string, afterMs: number) =>
  new Promise<void>((resolve) => {
    const ws = new WebSocket(wsUrl(), 'graphql-transport-ws');
    ws.on('error', () => resolve());
    ws.on('open', () => ws.send(JSON.stringify({ type: 'connection_init' })));
    ws.on('message', (m) => {
      if (JSON.parse(String(m)).type !== 'connection_ack') return;
      ws.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query } }));
      setTimeout(() => {
        ws.terminate();
        resolve();
      }, afterMs);
    });
  });

/** One query over a fresh socket, answered in full. */
const answered = (query: string) =>
  new Promise<unknown>((resolve, reject) => {
    const ws = new WebSocket(wsUrl(), 'graphql-transport-ws');
    ws.on('error', reject);
    ws.on('open', () => ws.send(JSON.stringify({ type: 'connection_init' })));
    ws.on('message', (m) => {
      const msg = JSON.parse(String(m));
      if (msg.type === 'connection_ack') ws.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query } }));
      if (msg.type === 'next') {
        ws.close();
        resolve(msg.payload);
      }
    });
  });

it('sixty clients leaving while their answers are written: nothing logged as an internal error, and the gateway answers the next', async () => {
  const errors = jest.spyOn(console, 'error').mockImplementation(() => undefined);
  try {
    await Promise.all(Array.from({ length: 60 }, (_, i) => leaver(`query Leaving${i % 4} { hello item(id: "${i}") { label } }`, i % 3)));
    // Writes to the dropped sockets fail once the kernel notices: every socket closed on the server's side.
    await until(() => g.connections(), 0);
    expect(errors.mock.calls.map((c) => String(c[0]))).toEqual([]);
    expect(await answered('{ hello }')).toEqual({ data: { hello: 'hello world' } });
  } finally {
    errors.mockRestore();
  }
});
