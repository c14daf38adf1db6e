import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startPlatformProcess, stopProcess, type PlatformProcess } from './processes';
import { freePort } from './server';
import { eventually } from '../../shared/wait';

/**
 * A collector that is down or stalls costs the spans, never the platform: requests are answered as
 * before, a warning says why the traces are missing (at most one a minute), and SIGTERM still stops
 * the platform cleanly (exit 0, no stack trace), the buffered spans given up with a warning.
 * (A refused export at stop once crashed the process with an unhandled rejection.)
 */
interface Collector {
  url: string;
  close(): Promise<void>;
}

/** Nothing listens on the port: every export is refused. */
async function refusing(): Promise<Collector> {
  return { url: `http://127.0.0.1:${await freePort()}`, close: async () => undefined };
}

/** Accepts connections and never answers: every export waits for the exporter's timeout. */
async function stalling(): Promise<Collector> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

const graphql = (url: string) =>
  fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ __typename }' }),
    signal: AbortSignal.timeout(15_000),
  });

describe.each([
  ['refuses every export', refusing],
  ['accepts and never answers', stalling],
])('a collector that %s', (_name, collector) => {
  it('leaves requests answered, warns why the traces are missing, and lets SIGTERM stop the platform cleanly', async () => {
    const c = await collector();
    const dir = mkdtempSync(join(tmpdir(), 'platform-collector-'));
    let p: PlatformProcess | undefined;
    try {
      p = await startPlatformProcess(['start'], {
        PLATFORM_DATA_DIR: dir,
        PORT: String(await freePort()),
        WORKERS: '1',
        LOG_LEVEL: 'warn',
        OTEL_TRACES_EXPORTER: 'otlp',
        OTEL_EXPORTER_OTLP_ENDPOINT: c.url,
        OTEL_BSP_SCHEDULE_DELAY: '100',
        OTEL_EXPORTER_OTLP_TIMEOUT: '500',
      });
      // Batches fail while requests keep coming: each is answered all the same.
      for (let i = 0; i < 20; i++) {
        const r = await graphql(p.url);
        expect(r.status).toBe(200);
        expect(await r.json()).toEqual({ data: { __typename: 'Query' } });
        await sleep(50);
      }
      await eventually(() => p!.output().includes('spans may be lost'));
      expect(p.output()).toMatch(
        /"level":40,[^\n]*"msg":"traces: [^"\n]+; spans may be lost: check OTEL_EXPORTER_OTLP_ENDPOINT and the collector"/,
      );
      // At most one such line a minute, however many batches failed.
      expect(p.output().match(/spans may be lost/g)).toHaveLength(1);
      // Spans buffered at the stop: the last batch cannot leave either.
      for (let i = 0; i < 10; i++) expect((await graphql(p.url)).status).toBe(200);
      expect(await stopProcess(p.child)).toBe(0);
      expect(p.output()).not.toMatch(/triggerUncaughtException|Unhandled|^\s+at /m);
    } finally {
      // A failed expectation must not leave the platform running (jest would wait for it).
      if (p) await stopProcess(p.child);
      await c.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
