import type { AddressInfo } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';
import { keepSocketsAlive } from '../../../edge/graphql/ws-keepalive';

let wss: WebSocketServer;
let stop: () => void;
const sockets: WebSocket[] = [];

const start = (everyMs: number, deadAfterMs: number) =>
  new Promise<void>((resolve) => {
    wss = new WebSocketServer({ port: 0, host: '127.0.0.1' }, () => resolve());
    stop = keepSocketsAlive(wss, everyMs, deadAfterMs);
  });
const connect = async (opts: { autoPong?: boolean } = {}) => {
  const ws = new WebSocket(`ws://127.0.0.1:${(wss.address() as AddressInfo).port}`, opts);
  sockets.push(ws);
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  return ws;
};
const closed = (ws: WebSocket) => new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
const pings = (ws: WebSocket, n: number) =>
  new Promise<void>((resolve) => {
    let seen = 0;
    ws.on('ping', () => ++seen === n && resolve());
  });

afterEach(async () => {
  stop();
  sockets.splice(0).forEach((s) => s.terminate());
  await new Promise((resolve) => wss.close(resolve));
});

describe('WebSocket keep-alive', () => {
  it('pings open sockets and cuts one that never answers once it has been silent past the limit', async () => {
    await start(50, 400);
    const silent = await connect({ autoPong: false });
    const alive = await connect();
    const cut = closed(silent);
    await pings(alive, 3);
    expect(await cut).toBe(1006);
    await pings(alive, 3);
    expect(alive.readyState).toBe(WebSocket.OPEN);
  });

  it('keeps a healthy socket whose pongs wait behind a busy event loop', async () => {
    await start(20, 1000);
    const ws = await connect();
    let cut = false;
    ws.once('close', () => (cut = true));
    await pings(ws, 2);
    const until = Date.now() + 300; // fifteen ping periods without the event loop turning
    while (Date.now() < until) {
      /* busy */
    }
    await pings(ws, 5);
    expect(cut).toBe(false);
    expect(ws.readyState).toBe(WebSocket.OPEN);
  });
});
