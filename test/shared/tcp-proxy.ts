import net from 'node:net';

/**
 * A TCP proxy to `target` that can play a server restart: `down()` cuts every connection and
 * resets new ones until `up()`. Replicas pointed at it lose their database (or Redis) the way
 * they would during a restart, while the real server stays up for every other test.
 */
export async function tcpProxy(target: { host: string; port: number }) {
  const open = new Set<net.Socket>();
  let isDown = false;
  const server = net.createServer((client) => {
    if (isDown) return void client.resetAndDestroy();
    const upstream = net.connect(target.port, target.host);
    open.add(client).add(upstream);
    client.pipe(upstream).pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    port: (server.address() as net.AddressInfo).port,
    down() {
      isDown = true;
      for (const s of open) s.resetAndDestroy();
      open.clear();
    },
    up() {
      isDown = false;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of open) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** `url` with its host and port replaced by the proxy's. */
export function viaProxy(url: string, port: number): string {
  const u = new URL(url);
  u.hostname = '127.0.0.1';
  u.port = String(port);
  return u.toString();
}
