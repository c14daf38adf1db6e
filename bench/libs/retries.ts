/**
 * (b) Upstream retries for `npm run bench:libs`: the platform's transport (core/shared/http, with
 * the vendors' policy of core/models/upstream/http.ts) against undici's RetryAgent over an Agent
 * with the same timeouts, both on the project's undici, against a local server that plays each
 * scenario. Overhead is a 2xx POST back to back; behaviour is what each does in the scenarios.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Agent, FormData as UndiciFormData, RetryAgent, type Dispatcher } from 'undici';
import type { RetryPolicy } from '../../core/shared/http/retry';
import { httpTransport } from '../../core/shared/http/transport';
import { ratio, sideBySide, us } from './timing';

const SETTINGS = { connectTimeoutMs: 5000, readTimeoutMs: 1000, retries: 2, retryBaseMs: 50 };
const BODY = JSON.stringify({ model: 'bench', messages: [{ role: 'user', content: 'Say hi.' }] });
const ANSWER = JSON.stringify({ id: 'chatcmpl-1', choices: [{ index: 0, message: { role: 'assistant', content: 'Hi.' } }] });

/** The vendors' policy (core/models/upstream/http.ts) with the settings above. */
const POLICY: RetryPolicy = {
  retries: SETTINGS.retries,
  retryStatus: (s) => s === 429 || s >= 500,
  backoffMs: SETTINGS.retryBaseMs,
  budgetMs: SETTINGS.readTimeoutMs,
};

/** The same, as RetryAgent's options (POST added: it retries only idempotent methods by default). */
const RETRY_OPTIONS = {
  maxRetries: SETTINGS.retries,
  minTimeout: SETTINGS.retryBaseMs,
  timeoutFactor: 2,
  maxTimeout: SETTINGS.readTimeoutMs,
  statusCodes: [429, 500, 502, 503, 504],
  methods: ['POST'] as Dispatcher.HttpMethod[],
  retryAfter: true,
  throwOnError: false,
};

/** Each scenario is the `x-scenario` header; a request's attempts share its `x-id`. */
function scenarioServer(): Promise<{ server: Server; origin: string; attempts: Map<string, number> }> {
  const attempts = new Map<string, number>();
  const handle = (req: IncomingMessage, res: ServerResponse, body: string) => {
    const id = String(req.headers['x-id']);
    const n = (attempts.get(id) ?? 0) + 1;
    attempts.set(id, n);
    const json = (status: number, headers: Record<string, string> = {}) =>
      res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(ANSWER);
    switch (req.headers['x-scenario']) {
      case 'fail-once':
        return n === 1 ? json(503) : json(200);
      case 'long-retry-after':
        return json(429, { 'retry-after': '30' });
      case 'retry-after-1s':
        return json(503, { 'retry-after': '1' });
      case 'multipart':
        return n === 1 ? json(503) : json(body.includes('hello upload') ? 200 : 400);
      case 'cut-body':
        // The head and half of an event stream, then the connection drops.
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: {"choices":[{"delta":{"content":"Hi"}}]}\n\n');
        setTimeout(() => res.socket?.destroy(), 20);
        return;
      default:
        return json(200);
    }
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c)).on('end', () => handle(req, res, Buffer.concat(chunks).toString()));
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, attempts }),
    ),
  );
}

type Outcome = string;
type Send = (scenario: string, id: string, opts?: { signal?: AbortSignal; form?: boolean; origin?: string }) => Promise<Outcome>;

export async function compareRetries(rounds: number, ms: number, print: (s: string) => void) {
  const { server, origin, attempts } = await scenarioServer();
  const transport = httpTransport(SETTINGS);
  const agent = new Agent({
    connect: { timeout: SETTINGS.connectTimeoutMs },
    headersTimeout: SETTINGS.readTimeoutMs,
    bodyTimeout: SETTINGS.readTimeoutMs,
    keepAliveTimeout: 30_000,
  });
  const retryAgent = new RetryAgent(agent, RETRY_OPTIONS);

  // Each side's FormData: ours takes Node's global one (the transport copies it into undici's), RetryAgent undici's own.
  const form = <F extends { append(name: string, value: Blob, file: string): void }>(f: F) => {
    f.append('file', new Blob(['hello upload']), 'a.txt');
    return f;
  };
  const headers = (scenario: string, id: string, json: boolean) => ({
    ...(json ? { 'content-type': 'application/json' } : {}),
    'x-scenario': scenario,
    'x-id': id,
  });
  const ours: Send = async (scenario, id, opts = {}) => {
    const body = opts.form ? form(new FormData()) : BODY;
    const res = await transport.send(
      { url: `${opts.origin ?? origin}/v1/chat`, method: 'POST', headers: headers(scenario, id, !opts.form), body, signal: opts.signal },
      POLICY,
      'bench',
    );
    const text = await res.body.text();
    return `${res.status} (${text.length} bytes read)`;
  };
  const theirs: Send = async (scenario, id, opts = {}) => {
    const url = new URL(`${opts.origin ?? origin}/v1/chat`);
    const body = opts.form ? form(new UndiciFormData()) : BODY;
    const res = await retryAgent.request({
      origin: url.origin,
      path: url.pathname,
      method: 'POST',
      headers: headers(scenario, id, !opts.form),
      body,
      signal: opts.signal,
    });
    const text = await res.body.text();
    return `${res.statusCode} (${text.length} bytes read)`;
  };

  print('\n## (b) Upstream retries: core/shared/http transport vs undici RetryAgent\n\n');
  print(
    `Both on undici ${(require('undici/package.json') as { version: string }).version}, timeouts connect ${SETTINGS.connectTimeoutMs} ms, read ${SETTINGS.readTimeoutMs} ms; ${SETTINGS.retries} retries from ${SETTINGS.retryBaseMs} ms (RetryAgent: POST allowed, throwOnError false, maxTimeout = our Retry-After budget).\n\n`,
  );

  let seq = 0;
  const plain = async () => {
    const res = await agent.request({ origin, path: '/v1/chat', method: 'POST', headers: headers('ok', `p${seq++}`, true), body: BODY });
    await res.body.text();
  };
  const r = await sideBySide(
    () => ours('ok', `o${seq++}`),
    () => theirs('ok', `t${seq++}`),
    rounds,
    ms,
  );
  const bare = await sideBySide(() => ours('ok', `o${seq++}`), plain, rounds, ms);
  print(
    `A 2xx POST, one connection, back to back, CPU per request (client and the local server, one process): ours ${us(r.ours.cpuUs)}, RetryAgent ${us(r.theirs.cpuUs)}, RetryAgent/ours ${ratio(r, 'cpuUs')} (wall ${us(r.ours.wallUs)} and ${us(r.theirs.wallUs)}); ` +
      `measured again beside undici's plain Agent: ours ${us(bare.ours.cpuUs)}, Agent ${us(bare.theirs.cpuUs)}, Agent/ours ${ratio(bare, 'cpuUs')}.\n\n`,
  );

  const closed = await new Promise<string>((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as AddressInfo).port;
      s.close(() => resolve(`http://127.0.0.1:${port}`));
    });
  });
  const scenarios: { name: string; run: (send: Send, id: string) => Promise<Outcome> }[] = [
    { name: '503 once, then 200', run: (send, id) => send('fail-once', id) },
    { name: '429 with Retry-After: 30 (over the 1 s budget)', run: (send, id) => send('long-retry-after', id) },
    {
      name: '503 Retry-After: 1, caller aborts at 100 ms',
      run: (send, id) => send('retry-after-1s', id, { signal: AbortSignal.timeout(100) }),
    },
    { name: 'POST whose streamed body is cut after the head', run: (send, id) => send('cut-body', id) },
    { name: 'multipart body, 503 once', run: (send, id) => send('multipart', id, { form: true }) },
    { name: 'connection refused', run: (send, id) => send('ok', id, { origin: closed }) },
  ];
  print('| scenario | ours: outcome | ours: attempts, time | RetryAgent: outcome | RetryAgent: attempts, time |\n|---|---|---|---|---|\n');
  for (const s of scenarios) {
    const cells: string[] = [];
    for (const [side, send] of [
      ['o', ours],
      ['t', theirs],
    ] as const) {
      const id = `${side}-${s.name}`;
      const started = performance.now();
      const outcome = await s
        .run(send, id)
        .catch(
          (err: Error & { code?: string }) =>
            `throws ${err.name}${typeof err.code === 'string' ? ` ${err.code}` : ''}: ${err.message.slice(0, 60)}`,
        );
      const elapsed = performance.now() - started;
      cells.push(outcome, `${attempts.get(id) ?? '-'}, ${elapsed.toFixed(0)} ms`);
    }
    print(`| ${s.name} | ${cells.join(' | ')} |\n`);
  }
  await transport.close();
  await retryAgent.close();
  await new Promise((resolve) => server.close(resolve));
  server.closeAllConnections();
  return r;
}
