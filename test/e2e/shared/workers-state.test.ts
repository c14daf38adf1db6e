import { createHash, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startPlatformProcess, stopProcess, type PlatformProcess } from './processes';
import { freePort, platformCli } from './server';
import { sseData } from '../../shared/sse';

/**
 * `platform start` with WORKERS=2 behaves as one service: cached answers, a key's rpm and token
 * budget, and persisted queries are seen alike by both workers. Every request opens its own
 * connection (the primary hands connections to the workers in turn), and the access log's `pid`
 * of each request id shows that both workers answered.
 */
describe('two worker processes share the gateway state', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'platform-workers-state-'));
  let server: PlatformProcess;
  let demoKey: string;

  beforeAll(async () => {
    server = await startPlatformProcess(
      ['start'],
      { PLATFORM_DATA_DIR: dataDir, PORT: String(await freePort()), WORKERS: '2', LOG_LEVEL: 'info' },
      90_000,
    );
    demoKey = (JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')) as Record<string, string>).api_key!;
  }, 120_000);
  afterAll(async () => {
    if (server) await stopProcess(server.child);
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** The pids that served these request ids, from the access log (waits for every line). */
  const servedBy = async (ids: string[]) => {
    const pids = new Map<string, number>();
    for (let i = 0; i < 200 && pids.size < ids.length; i++) {
      for (const line of server.output().split('\n')) {
        if (!line.startsWith('{')) continue;
        const entry = JSON.parse(line) as { reqId?: string; pid?: number; msg?: string };
        if (entry.msg === 'request' && entry.reqId && ids.includes(entry.reqId)) pids.set(entry.reqId, entry.pid!);
      }
      if (pids.size < ids.length) await sleep(50);
    }
    expect(pids.size).toBe(ids.length);
    return new Set(pids.values());
  };
  const ids: string[] = [];
  const send = (path: string, init: RequestInit & { headers?: Record<string, string> } = {}) => {
    const id = randomUUID();
    ids.push(id);
    return fetch(`${server.url}${path}`, { ...init, headers: { connection: 'close', 'x-request-id': id, ...init.headers } });
  };
  const newKey = async (...flags: string[]) => {
    const r = await platformCli(dataDir, ['key', 'create', '--name', 'limited', ...flags]);
    expect(r.status).toBe(0);
    return JSON.parse(r.stdout).api_key as string;
  };
  const chat = (key: string, body: Record<string, unknown>) =>
    send('/proxy/api/v1/azure/openai/deployments/local-chat/chat/completions?api-version=2024-10-21-preview', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'api-key': key },
      body: JSON.stringify(body),
    });
  const messages = (topic: string) => [
    { role: 'system', content: `Sources:\n[1] ${topic} retreat as the climate warms. Sea levels rise as ice melts.` },
    { role: 'user', content: `Why do ${topic} retreat?` },
  ];

  beforeEach(() => {
    ids.length = 0;
  });

  it('answers a repeated identical call from the cache on whichever worker it lands', async () => {
    const outcomes: string[] = [];
    const texts = new Set<string>();
    for (let i = 0; i < 12; i++) {
      const res = await chat(demoKey, { messages: messages('Glaciers') });
      expect(res.status).toBe(200);
      outcomes.push(res.headers.get('x-cache')!);
      texts.add(((await res.json()) as any).choices[0].message.content);
    }
    expect(outcomes).toEqual(['MISS', ...Array(11).fill('HIT')]);
    expect(texts.size).toBe(1);
    expect((await servedBy(ids)).size).toBe(2);
  });

  it('replays a cached streamed answer as a stream, piece by piece, on either worker', async () => {
    const stream = async () => {
      const res = await chat(demoKey, { messages: messages('Ice sheets'), stream: true });
      expect(res.headers.get('content-type')).toContain('text/event-stream');
      const events = sseData(await res.text());
      const text = events
        .filter((d) => d !== '[DONE]')
        .map((d) => JSON.parse(d).choices[0]?.delta?.content ?? '')
        .join('');
      return { cache: res.headers.get('x-cache'), chunks: events.length, text };
    };
    const first = await stream();
    expect(first.cache).toBe('MISS');
    expect(first.chunks).toBeGreaterThan(3);
    for (let i = 0; i < 6; i++) expect(await stream()).toEqual({ ...first, cache: 'HIT' });
    expect((await servedBy(ids)).size).toBe(2);
  });

  it('admits exactly --rpm requests of a key across workers; the rest get 429 with Retry-After', async () => {
    const key = await newKey('--rpm', '10');
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => chat(key, { messages: messages(`Glaciers ${i}`) })));
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(40);
    for (const r of answers.filter((x) => x.status === 429)) {
      const wait = Number(r.headers.get('retry-after'));
      expect(wait).toBeGreaterThanOrEqual(1);
      expect(wait).toBeLessThanOrEqual(60);
      expect(((await r.json()) as any).error.code).toBe('rate_limit_exceeded');
    }
    expect((await servedBy(ids)).size).toBe(2);
  });

  it("spends a key's token budget once across workers: exactly the calls that fit are answered", async () => {
    // A call's tokens (its answer is the same each time: the local model, then the cache).
    const probe = (await (await chat(demoKey, { messages: messages('Budgets') })).json()) as any;
    const perCall = probe.usage.total_tokens as number;
    const key = await newKey('--token-budget', String(3 * perCall - 1));
    ids.length = 0;
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) {
      const res = await chat(key, { messages: messages('Budgets') });
      statuses.push(res.status);
      if (res.status === 429) expect(((await res.json()) as any).error.code).toBe('insufficient_quota');
      else await res.arrayBuffer();
    }
    expect(statuses).toEqual([200, 200, 200, 429, 429, 429, 429, 429]);
    expect((await servedBy(ids)).size).toBe(2);
  });

  it('knows a persisted query registered through one worker on every worker', async () => {
    const query = `{ realm { name } } # ${randomUUID()}`;
    const sha256Hash = createHash('sha256').update(query).digest('hex');
    const gql = (body: unknown) =>
      send('/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then(
        (r) => r.json() as Promise<any>,
      );
    const extensions = { persistedQuery: { version: 1, sha256Hash } };
    expect((await gql({ extensions })).errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
    expect(await gql({ query, extensions })).toEqual({ data: { realm: { name: 'default' } } });
    for (let i = 0; i < 8; i++) expect(await gql({ extensions })).toEqual({ data: { realm: { name: 'default' } } });
    expect((await servedBy(ids)).size).toBe(2);
  });
});
