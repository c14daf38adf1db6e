import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_CATALOG } from '../../../core/models/catalog/catalog';
import { startFakeOpenAi, type FakeOpenAi } from '../../shared/fakes/openai-upstream';
import { startInTemp, type Started } from '../shared/server';
import { newKey } from './new-key';

const KEY = 'routing-e2e-token-0123456789';

/**
 * The router end to end (issue 35): the whole platform with a catalog file whose models have two
 * or three deployments on fake OpenAI-compatible servers (the real wire), called over HTTP through
 * the Azure door. The attacks of the issue: a stalling deployment, a stream cut midway, a 429 with
 * an hour's Retry-After, every deployment failing (attempts bounded: the fakes count requests),
 * a header naming a model the key may not use, and 500 parallel calls with one deployment failing.
 */
describe('model gateway: routing over deployments', () => {
  let p: Started;
  const fakes: FakeOpenAi[] = [];
  let key: string;
  const dep = (id: string, i: number) => ({
    id,
    upstream: { provider: 'openai-compatible', baseUrl: `${fakes[i].url}/v1`, model: `up-${id}`, credentialEnv: 'E2E_ROUTING_KEY' },
  });
  const model = (id: string, deployments: object[], routing: object) => ({ id, group: 'A', contextLength: 8192, deployments, routing });

  const chat = (model: string, opts: { stream?: boolean; route?: object; key?: string } = {}) =>
    fetch(`${p.url}/proxy/api/v1/azure/openai/deployments/${model}/chat/completions?api-version=2024-10-21`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        // No cached answers: each call must reach the router.
        'api-key': `${opts.key ?? key}/{"is_cache":0}`,
        ...(opts.route && { 'x-platform-route': JSON.stringify(opts.route) }),
      },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'Why do seas rise?' }], stream: opts.stream ?? false }),
    });
  const counts = () => fakes.map((f) => f.requests.length);
  const since = (before: number[]) => counts().map((n, i) => n - before[i]);

  beforeAll(async () => {
    for (const answer of ['from A', 'from B', 'from C']) fakes.push(await startFakeOpenAi({ answer }));
    process.env.E2E_ROUTING_KEY = KEY;
    // A stalled attempt is cut after 1.5 s: long enough for B's answer on a loaded machine (300 ms was not), short for the test.
    const fast = { retry: { attempts: 1, backoffMs: 0 }, timeout: { attemptMs: 1500 } };
    const file = join(tmpdir(), `catalog-routing-${process.pid}-${Date.now()}.json`);
    writeFileSync(
      file,
      JSON.stringify({
        models: [
          ...DEFAULT_CATALOG.models,
          model('stall', [dep('a', 0), dep('b', 1)], fast),
          // No short attempt timeout but for `stall`: on a loaded machine B's answer took over 300 ms, was retried, and counted twice.
          model('cut', [dep('a', 0), dep('b', 1)], { retry: { attempts: 1, backoffMs: 0 } }),
          model('limited', [dep('a', 0), dep('b', 1)], { retry: { attempts: 1, backoffMs: 0 } }),
          model('down', [dep('a', 0), dep('b', 1)], { retry: { attempts: 1, backoffMs: 0 } }),
          model('three', [dep('a', 0), dep('b', 1), dep('c', 2)], { strategy: 'weighted', retry: { attempts: 0 } }),
          model('secret', [dep('c', 2)], {}),
          { ...model('small', [dep('a', 0)], { contextFallback: 'big', contentFallback: 'big' }), contextLength: 20 },
          model('big', [dep('c', 2)], {}),
        ],
      }),
    );
    p = await startInTemp('all', { MODELS_CATALOG_FILE: file }).finally(() => rmSync(file, { force: true }));
    key = p.bootstrap!.values.api_key!;
  }, 60_000);
  afterAll(async () => {
    await p?.stop();
    for (const f of fakes) await f.close();
    delete process.env.E2E_ROUTING_KEY;
  });

  it('goes on to the next deployment when one stalls, and says which answered', async () => {
    fakes[0].script({ stall: true }, { stall: true });
    const before = counts();
    const res = await chat('stall');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-platform-deployment')).toBe('stall@b');
    expect(((await res.json()) as { choices: { message: { content: string } }[] }).choices[0].message.content).toBe('from B');
    expect(since(before)).toEqual([2, 1, 0]);
    expect(JSON.parse(fakes[1].requests.at(-1)!.body.toString()).model).toBe('up-b');
  });

  it('fails a stream over when it is cut before its first piece; a stream cut after it ends with the vendor’s error event', async () => {
    fakes[0].script({ reset: true }, { reset: true });
    const cutBefore = counts();
    const first = await chat('cut', { stream: true });
    expect(first.status).toBe(200);
    expect(first.headers.get('x-platform-deployment')).toBe('cut@b');
    expect(await first.text()).toContain('from B');
    expect(since(cutBefore)).toEqual([2, 1, 0]);

    // Chunk 0 is the role's (no text): the cut comes after the first piece of text.
    fakes[0].script({ answer: ['half ', 'rest'], resetAfter: 2 });
    const before = counts();
    const second = await chat('cut', { stream: true, route: { deployments: ['a'] } });
    expect(second.status).toBe(200);
    const text = await second.text().catch(() => '');
    expect(text).toContain('half');
    expect(text).not.toContain('rest');
    expect(since(before)).toEqual([1, 0, 0]);
  });

  it('cools a deployment answering 429 with an hour’s Retry-After and serves from the other at once', async () => {
    fakes[0].script({ status: 429, headers: { 'retry-after': '3600' } });
    const before = counts();
    const res = await chat('limited');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-platform-deployment')).toBe('limited@b');
    // The next calls never reach A: it is cooling down for an hour.
    for (let i = 0; i < 3; i++) expect((await chat('limited')).status).toBe(200);
    expect(since(before)).toEqual([1, 4, 0]);
    // Only A asked for: 503 no_healthy_deployment with the hour as Retry-After.
    const only = await chat('limited', { route: { deployments: ['a'] } });
    expect(only.status).toBe(503);
    expect(Number(only.headers.get('retry-after'))).toBeGreaterThan(3500);
  });

  it('answers a clear error after a bounded number of attempts when every deployment fails', async () => {
    fakes[0].script({ status: 500 }, { status: 500 });
    fakes[1].script({ status: 503 }, { status: 503 });
    const before = counts();
    const res = await chat('down');
    expect(res.status).toBe(502);
    // Two deployments × (1 + 1 retry), the transport's own retries off.
    expect(since(before)).toEqual([2, 2, 0]);
  });

  it('refuses a header naming a fallback the key may not use (403), an unknown model (404) or a bad config (400)', async () => {
    const limitedKey = await newKey(p, 'no-secret', '--models', 'three');
    const before = counts();
    const forbidden = await chat('three', { key: limitedKey, route: { fallbacks: ['secret'] } });
    expect(forbidden.status).toBe(403);
    expect(JSON.stringify(await forbidden.json())).toContain('model_not_allowed');
    expect((await chat('three', { key: limitedKey, route: { fallbacks: ['nope'] } })).status).toBe(404);
    const bad = await chat('three', { route: { retry: { attempts: 99 } } });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await bad.json())).toContain('retry.attempts');
    expect((await chat('three', { route: { deployments: ['zz'] } })).status).toBe(400);
    expect(since(before)).toEqual([0, 0, 0]);
  });

  it('sends a prompt over the context length to the context fallback, and a content refusal to the content fallback', async () => {
    const long = await fetch(`${p.url}/proxy/api/v1/azure/openai/deployments/small/chat/completions?api-version=2024-10-21`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'api-key': `${key}/{"is_cache":0}` },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'Why do seas rise? '.repeat(20) }] }),
    });
    expect(long.status).toBe(200);
    expect(long.headers.get('x-platform-deployment')).toBe('big@c');

    fakes[0].script({ status: 400, code: 'content_filter', message: 'filtered' });
    const refused = await chat('small');
    expect(refused.status).toBe(200);
    expect(refused.headers.get('x-platform-deployment')).toBe('big@c');
  });

  it('serves 500 parallel calls while one of three deployments fails: no caller sees an error', async () => {
    fakes[0].script(...Array.from({ length: 600 }, () => ({ status: 500 })));
    const before = counts();
    const answers = await Promise.all(
      Array.from({ length: 500 }, () => chat('three').then(async (r) => [r.status, await r.text()] as const)),
    );
    expect(answers.filter(([s]) => s !== 200)).toEqual([]);
    const seen = since(before);
    expect(seen[1] + seen[2]).toBe(500);
    // A failed a few times, then cooled down: no retry storm against it.
    expect(seen[0]).toBeLessThan(500);
  }, 60_000);
});
