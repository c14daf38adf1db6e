import type { Duplex } from 'node:stream';

/** Default of GRAPHQL_WS_MAX_SOCKETS_PER_ADDRESS: open graphql-ws sockets one client address may hold in one process. */
export const DEFAULT_SOCKETS_PER_ADDRESS = 50;

/** Seconds a refused client is told to wait (Retry-After): sockets close as their subscriptions end. */
const RETRY_AFTER_SECONDS = 5;

/**
 * Open sockets counted per client address (as TRUST_PROXY resolves it), bounded in this process.
 * `take` returns the release to call when the socket closes, or undefined when the address already
 * holds `max`.
 */
export function socketsPerAddress(max: number) {
  const open = new Map<string, number>();
  return {
    take(address: string): (() => void) | undefined {
      const n = open.get(address) ?? 0;
      if (n >= max) return undefined;
      open.set(address, n + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const left = (open.get(address) ?? 1) - 1;
        if (left > 0) open.set(address, left);
        else open.delete(address);
      };
    },
    /** Sockets `address` holds now. */
    held: (address: string) => open.get(address) ?? 0,
  };
}

/**
 * Refuses an upgrade before it happens: HTTP 429 with Retry-After and a GraphQL error body (code
 * TOO_MANY_SOCKETS), as the other refusals at /graphql are written, then the connection closes.
 */
export function refuseTooManySockets(socket: Duplex, max: number): void {
  const body = JSON.stringify({
    errors: [
      {
        message: `At most ${max} open WebSockets per client address: close one, or retry in a moment`,
        extensions: { code: 'TOO_MANY_SOCKETS' },
      },
    ],
  });
  socket.on('error', () => socket.destroy());
  socket.end(
    [
      'HTTP/1.1 429 Too Many Requests',
      `Retry-After: ${RETRY_AFTER_SECONDS}`,
      'Content-Type: application/json; charset=utf-8',
      `Content-Length: ${Buffer.byteLength(body)}`,
      'Connection: close',
      '',
      body,
    ].join('\r\n'),
  );
}
