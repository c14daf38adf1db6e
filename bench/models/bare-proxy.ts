/**
 * The baseline of the gateway's overhead (issue 35): a bare Node pass-through proxy in its own
 * process, undici to the upstream, no auth and no parsing. Each request is piped to
 * BENCH_PROXY_TARGET (an origin) on a keep-alive pool and the answer piped back as it comes, so a
 * stream's first byte is passed on at once. What any proxy must cost (a second hop, the headers
 * read and written once more) is in its figures; what the gateway adds past that is its own.
 * Writes `{ url }` to BENCH_PROXY_FILE and serves until stopped.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { Pool } from 'undici';

/** Headers that belong to one hop (RFC 9110 §7.6.1), not passed on. */
const HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'host']);

const passed = (headers: IncomingHttpHeaders | Record<string, string | string[] | undefined>) => {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined && !HOP.has(k)) out[k] = v;
  return out;
};

async function main() {
  const file = process.env.BENCH_PROXY_FILE;
  const target = process.env.BENCH_PROXY_TARGET;
  if (!file || !target) throw new Error('BENCH_PROXY_FILE and BENCH_PROXY_TARGET are required');
  const pool = new Pool(target, { connections: 512, pipelining: 1, keepAliveTimeout: 30_000 });
  const server = createServer((req, res) => {
    pool
      .request({ method: req.method as 'POST', path: req.url ?? '/', headers: passed(req.headers), body: req })
      .then(async (up) => {
        // The headers go out with the first piece of the body (one write, as the upstream's did).
        res.writeHead(up.statusCode, passed(up.headers));
        await pipeline(up.body, res);
      })
      .catch((err: Error) => {
        if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' }).end(`bare proxy: ${err.message}`);
        else res.destroy();
      });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  writeFileSync(file, JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }));
  const stop = () => {
    server.closeAllConnections();
    void pool.close().finally(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
