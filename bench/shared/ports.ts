import { createServer } from 'node:net';

/**
 * Ports handed out for a process to listen on later, chosen below Linux's ephemeral range
 * (32768–60999): a port the OS picks with listen(0) lies in that range, where any outgoing
 * connection on the host may take it as its local port before the process binds it (seen as
 * EADDRINUSE in CI). Random, so that parallel test workers rarely pick the same one, and checked
 * free on 127.0.0.1 before it is returned.
 */
const LOW = 20000;
const HIGH = 32768;

const listensFree = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });

/** A port that is free on 127.0.0.1 now and outside the range outgoing connections draw from. */
export async function freePort(): Promise<number> {
  for (let tries = 0; tries < 200; tries++) {
    const port = LOW + Math.floor(Math.random() * (HIGH - LOW));
    if (await listensFree(port)) return port;
  }
  throw new Error(`no free port between ${LOW} and ${HIGH} after 200 tries`);
}
