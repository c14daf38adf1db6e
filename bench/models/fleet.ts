/**
 * The failing fakes of the routing bench (bench/models/failover.ts), in one process of their own:
 * BENCH_FLEET_SIZE OpenAI-wire upstreams (default 3), one per deployment. Each can be told to fail
 * (`POST /__fault`) and logs every chat call it saw with the caller's marker (`[call <id>]` in the
 * last message) and when it received and finished it. One process, so every timestamp comes from
 * one clock: the time from one deployment's failing answer to the fallback reaching another is a
 * difference of two of them. Writes `{ urls }` to BENCH_FLEET_FILE and serves until stopped.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { FakeEvent, Fault } from './fleet-log';

/** Epoch ms with a fraction, from the monotonic clock. */
const now = () => performance.timeOrigin + performance.now();
const MARKER = /\[call ([\w.-]+)\]/;
/** A stalled call is let go after this long, so nothing here waits forever. */
const STALL_CAP_MS = 60_000;
const WORDS = 'Glaciers retreat because summers grow warmer and the ice melts faster than snow falls'.split(' ');

function answerJson(model: string) {
  return {
    id: 'chatcmpl-fleet',
    object: 'chat.completion',
    created: 1_700_000_000,
    model,
    choices: [{ index: 0, finish_reason: 'stop', logprobs: null, message: { role: 'assistant', content: WORDS.join(' '), refusal: null } }],
    usage: { prompt_tokens: 40, completion_tokens: WORDS.length, total_tokens: 40 + WORDS.length },
  };
}

function streamEvents(model: string): string[] {
  const chunk = (delta: object, finish: string | null) =>
    `data: ${JSON.stringify({
      id: 'chatcmpl-fleet',
      object: 'chat.completion.chunk',
      created: 1_700_000_000,
      model,
      choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
    })}\n\n`;
  return [
    chunk({ role: 'assistant', content: '' }, null),
    ...WORDS.map((w, i) => chunk({ content: i ? ` ${w}` : w }, null)),
    chunk({}, 'stop'),
    'data: [DONE]\n\n',
  ];
}

const errorJson = (status: number, message: string) => ({
  error: { message, type: status === 429 ? 'rate_limit_error' : 'server_error', param: null, code: null },
});

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });

function fleetMember(index: number, events: FakeEvent[]): Server {
  let fault: Fault = { mode: 'ok' };
  return createServer((req, res) => {
    const receivedAt = now();
    void readBody(req).then((text) => {
      const path = (req.url ?? '').split('?')[0];
      if (path === '/__fault') {
        fault = JSON.parse(text) as Fault;
        // When the fault began, on the fakes' clock.
        return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ at: now() }));
      }
      if (!path.endsWith('/chat/completions')) return void res.writeHead(404).end();
      let json: { model?: string; stream?: boolean; messages?: { content?: unknown }[] } = {};
      try {
        json = JSON.parse(text) as typeof json;
      } catch {
        // answered like any other call; the marker is then missing
      }
      const last = json.messages?.at(-1)?.content;
      const marker = MARKER.exec(typeof last === 'string' ? last : JSON.stringify(last ?? ''))?.[1] ?? '';
      const event: FakeEvent = { deployment: index, marker, receivedAt, endedAt: 0, outcome: fault.mode };
      events.push(event);
      const end = () => (event.endedAt ||= now());
      res.once('close', end);
      answer(res, fault, json.model ?? 'fleet-model', json.stream === true, end);
    });
  });
}

function answer(res: ServerResponse, fault: Fault, model: string, stream: boolean, end: () => void): void {
  if (fault.mode === '500')
    return void res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify(errorJson(500, 'fleet: failing')));
  if (fault.mode === '429') {
    const headers = { 'content-type': 'application/json', 'retry-after': String(fault.retryAfterSeconds ?? 3600) };
    return void res.writeHead(429, headers).end(JSON.stringify(errorJson(429, 'fleet: rate limited')));
  }
  if (fault.mode === 'stall') {
    // The headers never come; the call ends when the caller gives up (its `close` marks endedAt).
    const cap = setTimeout(() => res.destroy(), STALL_CAP_MS);
    return void res.once('close', () => clearTimeout(cap));
  }
  if (!stream) {
    if (fault.mode === 'half-reset') {
      const body = JSON.stringify(answerJson(model));
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(body.length) });
      res.write(body.slice(0, body.length >> 1), () => {
        end();
        res.destroy();
      });
      return;
    }
    return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answerJson(model)));
  }
  const events = streamEvents(model);
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  if (fault.mode === 'half-reset') {
    // Half the events, flushed, then the connection reset.
    res.write(events.slice(0, events.length >> 1).join(''), () => {
      end();
      res.destroy();
    });
    return;
  }
  res.end(events.join(''));
}

async function main() {
  const file = process.env.BENCH_FLEET_FILE;
  if (!file) throw new Error('BENCH_FLEET_FILE is required');
  const size = Number(process.env.BENCH_FLEET_SIZE || 3);
  const events: FakeEvent[] = [];
  const servers = Array.from({ length: size }, (_, i) => fleetMember(i, events));
  // One log for every member: drained by `GET /__events` on any of them.
  const drain = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(events.splice(0)));
  });
  const listen = (s: Server) =>
    new Promise<string>((resolve) => s.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(s.address() as AddressInfo).port}`)));
  for (const s of servers) s.keepAliveTimeout = 30_000;
  const urls = await Promise.all(servers.map(listen));
  const log = await listen(drain);
  writeFileSync(file, JSON.stringify({ urls, log }));
  const stop = () => {
    for (const s of [...servers, drain]) s.closeAllConnections();
    process.exit(0);
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
