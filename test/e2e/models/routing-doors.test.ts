import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import { DEFAULT_CATALOG } from '../../../core/models/catalog/catalog';
import { startFakeOpenAi, type FakeOpenAi } from '../../shared/fakes/openai-upstream';
import { sseEventsOf } from '../../shared/sse';
import { startInTemp, type Started } from '../shared/server';

const KEY = 'routing-doors-e2e-token-0123456789';

/** A call at one door: its path for a model, its key headers and its body. */
interface DoorCall {
  path: (model: string, stream: boolean) => string;
  headers: (key: string) => Record<string, string>;
  body: (stream: boolean) => object;
}

const user = 'Why do seas rise?';
const anthropicBody = (stream: boolean) => ({
  anthropic_version: 'bedrock-2023-05-31',
  max_tokens: 100,
  messages: [{ role: 'user', content: user }],
  stream,
});
const DOORS: Record<string, DoorCall> = {
  azure: {
    path: (m) => `/proxy/api/v1/azure/openai/deployments/${m}/chat/completions?api-version=2024-10-21`,
    headers: (key) => ({ 'api-key': key }),
    body: (stream) => ({ messages: [{ role: 'user', content: user }], stream }),
  },
  gemini: {
    path: (m, stream) => `/proxy/api/v1/gemini/v1beta/models/${m}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
    headers: (key) => ({ 'x-goog-api-key': key }),
    body: () => ({ contents: [{ role: 'user', parts: [{ text: user }] }] }),
  },
  converse: {
    path: (m, stream) => `/proxy/api/v1/bedrock/model/${m}/${stream ? 'converse-stream' : 'converse'}`,
    headers: (key) => ({ authorization: `Bearer ${key}` }),
    body: () => ({ messages: [{ role: 'user', content: [{ text: user }] }] }),
  },
  'bedrock-anthropic': {
    path: (m) => `/proxy/api/v1/bedrock/v1/messages/anthropic?modelId=${m}`,
    headers: (key) => ({ authorization: `Bearer ${key}` }),
    body: anthropicBody,
  },
  anthropic: {
    path: () => '/proxy/api/v1/anthropic/v1/messages',
    headers: (key) => ({ 'x-api-key': key, 'anthropic-version': '2023-06-01' }),
    body: (stream) => ({ ...anthropicBody(stream), anthropic_version: undefined }),
  },
};

/** Each door's error body for a status and the gateway's code, as its vendor's SDK reads it. */
const SHAPES: Record<string, (status: number, code: string) => object> = {
  azure: (status, code) => ({ error: { type: status === 429 ? 'rate_limit_error' : 'api_error', code } }),
  gemini: (status, code) => ({
    error: {
      code: status,
      status: status === 429 ? 'RESOURCE_EXHAUSTED' : 'UNAVAILABLE',
      details: expect.arrayContaining([expect.objectContaining({ reason: code })]),
    },
  }),
  converse: (status, code) => ({ __type: status === 429 ? 'ThrottlingException' : 'ServiceUnavailableException', reason: code }),
  'bedrock-anthropic': (status, code) => ({
    type: 'error',
    error: { type: status === 429 ? 'rate_limit_error' : 'overloaded_error', code },
  }),
  anthropic: (status, code) => ({ type: 'error', error: { type: status === 429 ? 'rate_limit_error' : 'overloaded_error', code } }),
};

/** The messages of an AWS event stream, as `:event-type` / `:exception-type` and the JSON payload. */
function eventStreamOf(bytes: Uint8Array): { type: string; payload: Record<string, unknown> }[] {
  const codec = new EventStreamCodec(toUtf8, fromUtf8);
  const out: { type: string; payload: Record<string, unknown> }[] = [];
  let at = 0;
  while (at + 4 <= bytes.length) {
    const length = new DataView(bytes.buffer, bytes.byteOffset + at, 4).getUint32(0);
    const message = codec.decode(bytes.subarray(at, at + length));
    const type = message.headers[':event-type'] ?? message.headers[':exception-type'];
    out.push({ type: String(type?.value), payload: JSON.parse(toUtf8(message.body)) as Record<string, unknown> });
    at += length;
  }
  return out;
}

/**
 * The router's failures at every door (issue 35): a routed model whose one deployment answers 429
 * with an hour's Retry-After (the caller sees that 429, then 503 `no_healthy_deployment` while it
 * cools), and a stream its deployment cuts after the first piece (the door's own error event), each
 * in the vendor's error format, over HTTP against fake OpenAI-compatible deployments.
 */
describe('model gateway: routing errors at each door', () => {
  let p: Started;
  let fake: FakeOpenAi;
  let key: string;
  const doors = Object.keys(DOORS);

  const call = (door: string, model: string, stream = false) => {
    const d = DOORS[door];
    const body = { ...d.body(stream), ...(door === 'anthropic' && { model }) };
    return fetch(`${p.url}${d.path(model, stream)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...d.headers(`${key}/{"is_cache":0}`) },
      body: JSON.stringify(body),
    });
  };

  beforeAll(async () => {
    fake = await startFakeOpenAi({ answer: 'from A' });
    process.env.E2E_ROUTING_DOORS_KEY = KEY;
    const dep = {
      id: 'a',
      upstream: { provider: 'openai-compatible', baseUrl: `${fake.url}/v1`, model: 'up-a', credentialEnv: 'E2E_ROUTING_DOORS_KEY' },
    };
    const model = (id: string, failures = 3) => ({
      id,
      group: 'A',
      contextLength: 8192,
      deployments: [dep],
      routing: { retry: { attempts: 0, backoffMs: 0 }, cooldown: { failures } },
    });
    const file = join(tmpdir(), `catalog-routing-doors-${process.pid}-${Date.now()}.json`);
    // A stream cut after its first piece counts towards a cooldown: `cut` is cut once per door, and must stay up for all.
    writeFileSync(
      file,
      JSON.stringify({ models: [...DEFAULT_CATALOG.models, ...doors.map((d) => model(`cool-${d}`)), model('cut', 100)] }),
    );
    p = await startInTemp('all', { MODELS_CATALOG_FILE: file }).finally(() => rmSync(file, { force: true }));
    key = p.bootstrap!.values.api_key!;
  }, 60_000);
  afterAll(async () => {
    await p?.stop();
    await fake?.close();
    delete process.env.E2E_ROUTING_DOORS_KEY;
  });

  it.each(Object.keys(DOORS))(
    '%s: a deployment’s 429 with its Retry-After, then 503 no_healthy_deployment while it cools',
    async (door) => {
      fake.script({ status: 429, headers: { 'retry-after': '3600' } });
      const before = fake.requests.length;
      const limited = await call(door, `cool-${door}`);
      expect(limited.status).toBe(429);
      expect(await limited.json()).toMatchObject(SHAPES[door](429, 'upstream_rate_limited'));
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(3500);

      const cooling = await call(door, `cool-${door}`);
      expect(cooling.status).toBe(503);
      expect(await cooling.json()).toMatchObject(SHAPES[door](503, 'no_healthy_deployment'));
      expect(Number(cooling.headers.get('retry-after'))).toBeGreaterThan(3500);
      if (door === 'converse') expect(cooling.headers.get('x-amzn-errortype')).toBe('ServiceUnavailableException');
      if (door !== 'converse' && door !== 'azure' && door !== 'gemini') expect(cooling.headers.get('request-id')).toBeTruthy();
      // The cooling deployment was not asked again.
      expect(fake.requests.length - before).toBe(1);
    },
  );
  /** What each door's stream ends with when its deployment resets after the first piece of text. */
  const CUT: Record<string, (res: Response) => Promise<void>> = {
    async azure(res) {
      const data = sseEventsOf(await res.text()).map((e) => e.data);
      expect(data.slice(-2, -1).map((d) => JSON.parse(d) as unknown)).toEqual([
        { error: { message: expect.stringContaining('ECONNRESET'), type: 'api_error', param: null, code: expect.any(String) } },
      ]);
      expect(data.at(-1)).toBe('[DONE]');
    },
    async gemini(res) {
      const last = JSON.parse(sseEventsOf(await res.text()).at(-1)!.data) as unknown;
      expect(last).toMatchObject({ error: { code: 502, status: 'UNAVAILABLE' } });
    },
    async converse(res) {
      const events = eventStreamOf(new Uint8Array(await res.arrayBuffer()));
      expect(events.at(-1)).toMatchObject({ type: 'modelStreamErrorException', payload: { originalStatusCode: 502 } });
    },
    async 'bedrock-anthropic'(res) {
      const events = sseEventsOf(await res.text());
      expect(events.at(-1)?.event).toBe('error');
      expect(JSON.parse(events.at(-1)!.data)).toMatchObject({ type: 'error', error: { type: 'api_error' } });
    },
  };
  CUT.anthropic = CUT['bedrock-anthropic'];

  it.each(Object.keys(DOORS))('%s: a stream cut after its first piece ends with the vendor’s error event', async (door) => {
    // Chunk 0 is the role's (no text): the cut comes after the first piece of text.
    fake.script({ answer: ['half ', 'rest'], resetAfter: 2 });
    const before = fake.requests.length;
    const res = await call(door, 'cut', true);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-platform-deployment')).toBe('cut@a');
    const copy = res.clone();
    await CUT[door](res);
    const text = Buffer.from(await copy.arrayBuffer()).toString('latin1');
    expect(text).toContain('half');
    expect(text).not.toContain('rest');
    // Not retried nor failed over: the caller already has a piece.
    expect(fake.requests.length - before).toBe(1);
  });
});
