import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { restAnswerModels } from '../../../services/chat/peers/models';
import { restRetrieval } from '../../../services/chat/peers/search';
import { openChatCore, type ChatCore } from '../../../core/chat';
import type { AnswerChunk } from '../../../core/chat/service';
import { PlatformError } from '../../../core/shared/errors';
import { DEFAULT_CATALOG } from '../../../core/models/catalog/catalog';
import { STATUS } from '../../../edge/http/errors';
import { chatFixture, type ChatFixture } from '../../e2e/chat/fixture';
import { post, sseChunks } from '../../e2e/chat/wire';
import { startFakeOpenAi, type FakeOpenAi } from '../../shared/fakes/openai-upstream';
import { eventually } from '../../shared/wait';

/**
 * The chat proxy's remote mode: a second chat core whose search and model gateway are the first
 * platform's, reached over their REST paths (services/chat/peers/), gives what the platform's own chat
 * proxy (in process) gives. `oc-chat` is a model on a fake OpenAI-compatible upstream, so a stream
 * can be stalled or broken midway.
 */
let f: ChatFixture;
let upstream: FakeOpenAi;
let remote: ChatCore;

const ASPIRIN = 'What are the side effects of aspirin?';
const generate = (body: unknown) => f.byBody(remote.service).generateAnswer(body, { requestId: 'remote-test' });
const sources = (body: unknown) => f.byBody(remote.service).getSources(body, { requestId: 'remote-test' });
const rest = (path: string, body: unknown) => f.call('POST', `/api/${path}`, { body, auth: '' });
/** A get_sources body: the query inside `request`, as the spec's GenerateAnswerRequest carries it. */
const sourcesBody = (query: string, request: Record<string, unknown> = {}) => ({
  request: { ...(f.body(query, {}, request).request as object), query },
  bot_details: {},
  chat_hist: [],
});

async function remoteChunks(body: unknown, signal?: AbortSignal, onChunk?: (c: AnswerChunk) => void): Promise<AnswerChunk[]> {
  const s = await f.byBody(remote.service).streamAnswer(body, { signal });
  const out: AnswerChunk[] = [];
  for await (const c of s.chunks) {
    out.push(c);
    onChunk?.(c);
  }
  return out;
}

/** The status and message a platform error becomes on the chat proxy's REST face. */
async function refusal(run: () => Promise<unknown>) {
  const err = await run().then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof PlatformError)) throw new Error(`expected a PlatformError, got ${String(err)}`);
  return { status: STATUS[err.kind], detail: err.message };
}

beforeAll(async () => {
  upstream = await startFakeOpenAi({ answer: 'The upstream says aspirin upsets the stomach.' });
  process.env.E2E_REMOTE_OC_KEY = 'remote-oc-token-0123456789';
  const file = join(tmpdir(), `catalog-chat-remote-${process.pid}-${Date.now()}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      models: [
        ...DEFAULT_CATALOG.models,
        {
          id: 'oc-chat',
          group: 'A',
          kind: 'chat',
          contextLength: 8192,
          upstream: { provider: 'openai-compatible', baseUrl: `${upstream.url}/v1`, model: 'llama3.2', credentialEnv: 'E2E_REMOTE_OC_KEY' },
        },
      ],
    }),
  );
  f = await chatFixture({ MODELS_CATALOG_FILE: file }).finally(() => rmSync(file, { force: true }));
  const cfg = f.platform.config as unknown as Record<string, number>;
  remote = openChatCore({
    retrieval: restRetrieval({ baseUrl: f.url }),
    models: restAnswerModels({ baseUrl: f.url }),
    limits: {
      searchMs: cfg.CHAT_SEARCH_TIMEOUT_MS,
      extractMs: cfg.CHAT_EXTRACT_TIMEOUT_MS,
      rewriteMs: cfg.CHAT_REWRITE_TIMEOUT_MS,
      sources: cfg.CHAT_SOURCES,
      filePassages: cfg.CHAT_FILE_PASSAGES,
    },
  });
}, 60_000);
afterAll(async () => {
  await f?.stop();
  await upstream?.close();
  delete process.env.E2E_REMOTE_OC_KEY;
});

describe('the same answers as the platform in process', () => {
  it('generate_answer: the same response, search text and finish reason', async () => {
    for (const body of [
      f.body(ASPIRIN),
      f.body('How do penguins keep the egg warm?', { model_info: { modelId: 'local-chat', max_tokens: 8 } }),
    ]) {
      const local = await rest('generate_answer', body);
      expect(local.status).toBe(200);
      expect(await generate(body)).toEqual(local.body);
    }
    expect((await generate(f.body(ASPIRIN))).response).toContain('stomach upset');
  });

  it('stream_generate_answer: the same chunks', async () => {
    const body = f.body(ASPIRIN);
    const local = sseChunks((await post(`${f.url}/api/stream_generate_answer`, body)).text);
    expect(local.done).toBe(true);
    const chunks = await remoteChunks(body);
    expect(chunks.length).toBeGreaterThan(2);
    expect(chunks).toEqual(local.chunks);
  });

  it('get_sources: the same sources and citations', async () => {
    const body = sourcesBody(ASPIRIN);
    const local = await rest('get_sources', body);
    expect(local.status).toBe(200);
    const r = await sources(body);
    expect(r).toEqual(local.body);
    expect(r.sources.citations[0]).toMatchObject({ citation: 1, title: 'Aspirin', source_category: 'search' });
  });

  it("reads the user's uploaded files through kvp.files", async () => {
    const content = 'The ferry to the lighthouse island leaves at dawn. Pack a raincoat for the ferry.';
    await f.ingest({ title: 'Trip notes', content, file_name: 'trip-notes.txt' });
    const request = { kvp: { files: [{ file_name: 'trip-notes.txt', source_category: 'InputFile' }] } };
    const body = sourcesBody('When does the ferry leave?', request);
    const local = await rest('get_sources', body);
    const r = await sources(body);
    expect(r).toEqual(local.body);
    expect(r.sources.citations).toContainEqual(expect.objectContaining({ file_name: 'trip-notes.txt', source_category: 'InputFile' }));
    expect(r.sources.all_input_texts.extracted_text_result).toContain('ferry to the lighthouse');
    // Only the named files are read as uploads, even for a question the tenant's other documents answer better.
    const other = sourcesBody(ASPIRIN, request);
    const mixed = await sources(other);
    expect(mixed).toEqual((await rest('get_sources', other)).body);
    expect(mixed.sources.citations.filter((c) => c.source_category === 'InputFile').every((c) => c.file_name === 'trip-notes.txt')).toBe(
      true,
    );
    const answered = f.body('When does the ferry leave?', {}, request);
    expect(await generate(answered)).toEqual((await rest('generate_answer', answered)).body);
  });
});

describe('refusals and tenancy', () => {
  it('a bad api_key, an unknown model and a model that does not chat are refused as in process', async () => {
    const cases = [
      f.body(ASPIRIN, { api_key: 'not-a-key' }),
      f.body(ASPIRIN, { api_key: null }),
      f.body(ASPIRIN, { model_info: { modelId: 'no-such-model' } }),
      f.body(ASPIRIN, { model_info: { modelId: 'local-embed' } }),
    ];
    const statuses = [];
    for (const body of cases) {
      const local = await rest('generate_answer', body);
      const r = await refusal(() => generate(body));
      expect(r.status).toBe(local.status);
      if (local.status !== 404) expect(r.detail).toBe(local.body.detail);
      statuses.push(r.status);
    }
    expect(statuses).toEqual([401, 401, 404, 400]);
  });

  it("a user's token of another tenant is refused; a reader never sees another tenant's documents", async () => {
    const mismatch = f.body(ASPIRIN, {}, { user_cred: { token: f.tokenB, client: { tenant_id: 'tenant-a' } } });
    expect(await refusal(() => generate(mismatch))).toEqual({ status: 403, detail: (await rest('generate_answer', mismatch)).body.detail });
    const question = 'What is the launch code? Is aspirin forbidden?';
    const a = await generate(f.body(question));
    expect(a.response).not.toMatch(/swordfish|forbidden/);
    const asA = await sources(sourcesBody(question));
    expect(asA.sources.citations.map((c) => c.title)).not.toContain('Secret of tenant b');
    const asB = await sources(sourcesBody(question, { user_cred: { token: f.tokenB, client: { tenant_id: 'tenant-b' } } }));
    expect(asB.sources.citations.map((c) => c.title)).toEqual(['Secret of tenant b']);
  });
});

describe('streams that do not end well', () => {
  const usage = async () => (await f.call('GET', '/proxy/api/v1/usage', { auth: '', headers: { 'api-key': f.apiKey } })).body;
  const errorsOf = (u: { by_model: { model: string; errors: number }[] }) => u.by_model.find((m) => m.model === 'oc-chat')?.errors ?? 0;

  it('a caller that leaves mid-stream ends the HTTP request: the gateway records a 499 and closes its upstream', async () => {
    upstream.script({ answer: 'One two three four five six seven eight nine ten eleven twelve.', stallAfter: 3 });
    const before = errorsOf(await usage());
    const leave = new AbortController();
    const body = f.body('Aspirin and the stomach, please (abort case)?', { model_info: { modelId: 'oc-chat' } });
    const chunks = await remoteChunks(body, leave.signal, (c) => c.finish_reason === null && leave.abort());
    expect(chunks[0].response).toBe('One two three ');
    // A caller who left is not a failure: its stream ends quietly, with no error chunk (issue 30).
    expect(chunks.map((c) => c.finish_reason)).toEqual(chunks.map(() => null));
    await upstream.requests.at(-1)!.cut;
    await eventually(async () => errorsOf(await usage()) !== before);
    expect(errorsOf(await usage())).toBe(before + 1);
  });

  it('a model that fails midway ends the stream as in process: the pieces so far, then finish_reason error', async () => {
    const body = f.body('Aspirin and the stomach, please (reset case)?', { model_info: { modelId: 'oc-chat' } });
    upstream.script({ answer: 'One two three four five six seven eight nine.', resetAfter: 3 });
    const local = sseChunks((await post(`${f.url}/api/stream_generate_answer`, body)).text);
    upstream.script({ answer: 'One two three four five six seven eight nine.', resetAfter: 3 });
    const chunks = await remoteChunks(body);
    expect(chunks).toEqual(local.chunks);
    expect(chunks.map((c) => c.finish_reason)).toEqual([null, null, 'error']);
  });

  it('a whole answer that fails is the same error as in process (502, same detail)', async () => {
    const body = f.body('Aspirin and the stomach, please (whole reset case)?', { model_info: { modelId: 'oc-chat' } });
    upstream.script({ reset: true }, { reset: true }, { reset: true }, { reset: true });
    const local = await rest('generate_answer', body);
    upstream.script({ reset: true }, { reset: true }, { reset: true }, { reset: true });
    expect(await refusal(() => generate(body))).toEqual({ status: local.status, detail: local.body.detail });
    expect(local.status).toBe(502);
  });
});

describe('/v2/chunk/search file_names', () => {
  it('keeps only the passages of objects with one of the file names', async () => {
    await f.ingest({ title: 'Garden A', content: 'Tomatoes need full sun and steady watering.', file_name: 'garden-a.txt' });
    await f.ingest({ title: 'Garden B', content: 'Tomatoes grow well in large pots on a balcony.', file_name: 'garden-b.txt' });
    const search = (body: unknown) => f.call('POST', '/cl/search/api/v2/chunk/search?query_string=tomatoes&page_size=10', { body });
    const all = await search({});
    expect(all.status).toBe(200);
    expect(all.body.result.map((p: { file_name: string }) => p.file_name)).toEqual(
      expect.arrayContaining(['garden-a.txt', 'garden-b.txt']),
    );
    const one = await search({ file_names: ['garden-b.txt'] });
    expect(one.body.result.length).toBeGreaterThan(0);
    expect(
      one.body.result.every((p: { file_name: string; title: string }) => p.file_name === 'garden-b.txt' && p.title === 'Garden B'),
    ).toBe(true);
    expect((await search({ file_names: ['no-such-file.txt'] })).body).toMatchObject({ result_count: 0, result: [], error: null });
    expect(
      (await search({ file_names: 'garden-a.txt' })).body.result.every((p: { file_name: string }) => p.file_name === 'garden-a.txt'),
    ).toBe(true);
  });
});
