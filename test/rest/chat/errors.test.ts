import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_CATALOG } from '../../../core/models/catalog/catalog';
import { joined, sseChunks } from '../../e2e/chat/wire';
import { startFakeOpenAi, type FakeOpenAi } from '../../shared/fakes/openai-upstream';
import { chatInProcess, type ChatInProcess } from './fixture';

/**
 * How the chat proxy's REST face refuses and fails: credentials, bad bodies, the model gateway's
 * refusals, a vendor upstream (a fake speaking OpenAI's wire) that is down, stalls or breaks
 * midway, bounds. In process (supertest on the app the platform serves): the statuses and bodies
 * are the router's and the core's, not the server's. A client leaving midway needs a real socket
 * and is in test/e2e/chat/upstreams.test.ts.
 */
let f: ChatInProcess;
let upstream: FakeOpenAi;
const catalog = join(tmpdir(), `catalog-rest-chat-${process.pid}.json`);

beforeAll(async () => {
  upstream = await startFakeOpenAi({ answer: 'Aspirin upsets the stomach [1].' });
  writeFileSync(
    catalog,
    JSON.stringify({
      models: [
        ...DEFAULT_CATALOG.models,
        {
          id: 'up-chat',
          group: 'A',
          kind: 'chat',
          contextLength: 8192,
          upstream: { provider: 'openai-compatible', baseUrl: `${upstream.url}/v1` },
        },
        {
          id: 'dead-chat',
          group: 'A',
          kind: 'chat',
          contextLength: 8192,
          upstream: { provider: 'openai-compatible', baseUrl: 'http://127.0.0.1:9/v1' },
        },
        { id: 'old-chat', group: 'A', kind: 'chat', contextLength: 8192, status: 'Deactivated', upstream: { provider: 'local' } },
      ],
    }),
  );
  // Short enough for the stall test to wait out, long enough for fifty answers at once on a loaded machine.
  f = await chatInProcess({ MODELS_CATALOG_FILE: catalog, MODELS_UPSTREAM_READ_TIMEOUT_MS: '3000', MODELS_UPSTREAM_RETRIES: '0' });
});
afterAll(async () => {
  await f?.close();
  await upstream?.close();
  rmSync(catalog, { force: true });
});

const ASK = 'What are the side effects of aspirin?';
const answer = (body: unknown) => f.post('/api/generate_answer', body);
const stream = (body: unknown) => f.post('/api/stream_generate_answer', body);
/** A body for the fake upstream's model, with the gateway's cache off so every call reaches it. */
const upBody = (extra: Record<string, unknown> = {}) =>
  f.body(ASK, { model_info: { modelId: 'up-chat' }, api_key: `${f.apiKey}/{"is_cache": 0}`, ...extra });
const withCred = (user_cred: unknown) => f.body(ASK, {}, { user_cred });

describe('credentials', () => {
  it.each([
    ['no user_cred', undefined],
    ['an empty token', { token: '', client: { tenant_id: 'tenant-a' } }],
    ['a token that is not one', { token: 'not-a-jwt', client: { tenant_id: 'tenant-a' } }],
  ])('%s is 401 with a detail', async (_, cred) => {
    const r = await answer(withCred(cred));
    expect(r.status).toBe(401);
    expect(typeof r.body.detail).toBe('string');
  });

  it("is 403 when tenant_id is not the token's tenant, or the user may not read documents", async () => {
    const other = await answer(withCred({ token: f.tokenA, client: { tenant_id: 'tenant-b' } }));
    expect(other.status).toBe(403);
    expect(other.body.detail).toMatch(/tenant_id/);
    const noRoles = await answer(withCred({ token: f.noRoles, client: { tenant_id: 'tenant-a' } }));
    expect(noRoles.status).toBe(403);
  });

  it('passes the gateway key refusals on: missing or unknown key 401, unknown or deactivated model 404, a model of another kind 400', async () => {
    expect((await answer(f.body(ASK, { api_key: undefined }))).status).toBe(401);
    expect((await answer(f.body(ASK, { api_key: 'lmk-nope' }))).status).toBe(401);
    const unknown = await answer(f.body(ASK, { model_info: { modelId: 'no-such-model' } }));
    expect(unknown.status).toBe(404);
    expect(unknown.body.detail).toMatch(/no-such-model/);
    expect((await answer(f.body(ASK, { model_info: { modelId: 'old-chat' } }))).status).toBe(404);
    expect((await answer(f.body(ASK, { model_info: { modelId: 'local-embed' } }))).status).toBe(400);
  });
});

describe('bad bodies', () => {
  it.each([
    ['query', { query: 5 }, ['body', 'query']],
    ['model_info.temperature', { model_info: { temperature: 'hot' } }, ['body', 'model_info', 'temperature']],
    ['history_prompt', { history_prompt: 'not a list' }, ['body', 'history_prompt']],
    [
      'request.user_cred.client.tenant_id',
      { request: { user_cred: { token: 'x', client: {} } } },
      ['body', 'request', 'user_cred', 'client', 'tenant_id'],
    ],
  ])('a wrong %s is 422 naming the field', async (_, extra, loc) => {
    const r = await answer({ ...f.body(ASK), ...extra });
    expect(r.status).toBe(422);
    expect(r.body.detail[0].loc).toEqual(loc);
  });

  it('no query anywhere is 422 naming query; malformed JSON is 400; an enormous body is 413', async () => {
    const none = await answer(f.body(''));
    expect(none.status).toBe(422);
    expect(none.body.detail[0].loc).toEqual(['body', 'query']);
    const bad = await answer('{"request": ');
    expect(bad.status).toBe(400);
    const huge = await answer(f.body('x'.repeat(3 * 1024 * 1024)));
    expect(huge.status).toBe(413);
  });
});

describe('the model upstream', () => {
  it('answers through a vendor upstream, which got the sources and the question', async () => {
    const r = await answer(upBody());
    expect(r.body).toEqual({ response: 'Aspirin upsets the stomach [1].', generated_search_text: ASK, finish_reason: 'stop' });
    const sent = upstream.requests.at(-1)!.json;
    expect(sent.messages.at(-1)).toEqual({ role: 'user', content: ASK });
    expect(sent.messages[1].content).toMatch(/^Sources:\n\n\[1\] Aspirin\n/);
  });

  it('maps finish reasons: length and content_filter reach the last chunk', async () => {
    upstream.script({ finishReason: 'length' }, { finishReason: 'content_filter' });
    const a = sseChunks((await stream(upBody())).text).chunks;
    expect(a.at(-1)!.finish_reason).toBe('length');
    const b = sseChunks((await stream(upBody())).text).chunks;
    expect(b.at(-1)!.finish_reason).toBe('content_filter');
  });

  it('is 502 with a detail when the upstream is down, and 504 when it stalls', async () => {
    const down = await answer(f.body(ASK, { model_info: { modelId: 'dead-chat' } }));
    expect(down.status).toBe(502);
    expect(typeof down.body.detail).toBe('string');
    const streamed = await stream(f.body(ASK, { model_info: { modelId: 'dead-chat' } }));
    expect(streamed.status).toBe(502);
    upstream.script({ stall: true });
    const slow = await answer(upBody());
    expect(slow.status).toBe(504);
    expect(typeof slow.body.detail).toBe('string');
  });

  it('ends a stream that breaks midway with finish_reason error, then [DONE]', async () => {
    upstream.script({ resetAfter: 2 });
    const r = await stream(upBody());
    expect(r.status).toBe(200);
    const { chunks, done } = sseChunks(r.text);
    expect(done).toBe(true);
    expect(chunks.at(-1)!.finish_reason).toBe('error');
  });
});

describe('under attack', () => {
  it('answers 50 identical requests at once, all the same', async () => {
    const all = await Promise.all(Array.from({ length: 50 }, () => stream(f.body(ASK))));
    expect(all.every((r) => r.status === 200)).toBe(true);
    const texts = new Set(all.map((r) => joined(sseChunks(r.text).chunks)));
    expect(texts.size).toBe(1);
  });

  it('refuses history beyond its bounds with 422, and takes deeply nested tool settings in its stride', async () => {
    const r = await answer(f.body(ASK, { history_prompt: Array.from({ length: 5000 }, () => 'q') }));
    expect(r.status).toBe(422);
    // Tool settings the proxy does not use are accepted as deep as any JSON body may go (128 levels);
    // deeper is refused before anything walks it, as on every route.
    const nested = (n: number) => JSON.parse('{"a":'.repeat(n) + '1' + '}'.repeat(n));
    expect((await answer(f.body(ASK, { all_tools: nested(100) }))).status).toBe(200);
    const deep = await answer(f.body(ASK, { all_tools: nested(3000) }));
    expect(deep.status).toBe(400);
    expect(JSON.stringify(deep.body)).toContain('deeper than 128 levels');
  });
});
