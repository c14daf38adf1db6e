/**
 * The fake OpenAI-wire upstream of `npm run bench:chat`, in its own process. A streamed chat answer
 * is BENCH_CHAT_CHUNKS (10) pieces, BENCH_CHAT_GAP_MS (2) ms apart, each piece's text the time it
 * was written (`[[t:<performance.timeOrigin + performance.now()>]] `), so the client can tell how
 * long each piece took to reach it, straight from the gateway or through the chat proxy. It keeps
 * the body of the last chat request (`GET /last`), so the bench can send the gateway the very
 * prompt the chat proxy built. It writes its URL to BENCH_UPSTREAM_FILE and serves until stopped.
 */
import { writeFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

const CHUNKS = Number(process.env.BENCH_CHAT_CHUNKS || 10);
const GAP_MS = Number(process.env.BENCH_CHAT_GAP_MS || 2);

/** The send time as the client reads it back from a piece of the answer. */
const stamp = () => `[[t:${(performance.timeOrigin + performance.now()).toFixed(3)}]] `;

const base = { id: 'chatcmpl-bench', created: 1_700_000_000, model: 'bench-model', system_fingerprint: 'fp_bench' };
const event = (choices: object[], extra: object = {}) =>
  `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices, ...extra })}\n\n`;
const delta = (d: object, finish: string | null = null) => event([{ index: 0, delta: d, finish_reason: finish, logprobs: null }]);

async function streamed(res: ServerResponse, usage: boolean): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.write(delta({ role: 'assistant', content: '' }));
  for (let i = 0; i < CHUNKS; i++) {
    if (i > 0) await sleep(GAP_MS);
    if (res.destroyed) return;
    res.write(delta({ content: stamp() }));
  }
  res.write(delta({}, 'stop'));
  if (usage) res.write(event([], { usage: { prompt_tokens: 100, completion_tokens: CHUNKS, total_tokens: 100 + CHUNKS } }));
  res.end('data: [DONE]\n\n');
}

async function main() {
  const file = process.env.BENCH_UPSTREAM_FILE;
  if (!file) throw new Error('BENCH_UPSTREAM_FILE is required');
  let last = '{}';
  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (b: Buffer) => parts.push(b));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0];
      if (req.method === 'GET' && path === '/last') return void res.writeHead(200, { 'content-type': 'application/json' }).end(last);
      if (req.method !== 'POST' || !path.endsWith('/chat/completions'))
        return void res.writeHead(404).end('{"error":{"message":"not found"}}');
      last = Buffer.concat(parts).toString('utf8');
      const body = JSON.parse(last) as { stream?: boolean; stream_options?: { include_usage?: boolean } };
      if (body.stream) return void streamed(res, !!body.stream_options?.include_usage).catch(() => res.destroy());
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          ...base,
          object: 'chat.completion',
          usage: { prompt_tokens: 100, completion_tokens: CHUNKS, total_tokens: 100 + CHUNKS },
          choices: [
            {
              index: 0,
              message: { role: 'assistant', content: Array.from({ length: CHUNKS }, stamp).join('') },
              finish_reason: 'stop',
              logprobs: null,
            },
          ],
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  writeFileSync(file, JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }));
  const stop = () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
