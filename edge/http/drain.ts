import type { Server } from 'node:http';

/**
 * The requests a server is answering (streams included: an SSE answer is one request until its
 * last event), so a shutdown can wait for them: SIGTERM stops taking connections, lets what is
 * running finish within a grace period, and only then cuts what is left.
 */
export function requestTracker(server: Server) {
  let active = 0;
  let draining = false;
  const idle = new Set<() => void>();
  server.on('request', (_req, res) => {
    active++;
    res.once('close', () => {
      active--;
      // Connections kept alive after their answer would otherwise hold server.close() open.
      if (draining) server.closeIdleConnections();
      if (active === 0) for (const done of idle) done();
    });
  });
  return {
    active: () => active,
    draining: () => draining,
    /**
     * Stops taking connections and resolves once every request in flight has ended, or after
     * `graceMs` (true when they all ended in time).
     */
    async drain(graceMs: number): Promise<boolean> {
      draining = true;
      server.close();
      server.closeIdleConnections();
      if (active === 0) return true;
      return new Promise<boolean>((resolve) => {
        const finish = (allEnded: boolean) => {
          clearTimeout(timer);
          idle.delete(ended);
          resolve(allEnded);
        };
        const ended = () => finish(true);
        const timer = setTimeout(() => finish(false), graceMs);
        idle.add(ended);
      });
    },
  };
}

export type RequestTracker = ReturnType<typeof requestTracker>;
