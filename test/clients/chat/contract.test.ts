import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chatClient } from '../../../clients/chat';
import type { AnswerChunk, AnswerStream } from '../../../core/chat/service';
import { PlatformError } from '../../../core/shared/errors';
import { DEFAULT_CATALOG } from '../../../core/models/catalog/catalog';
import type { ChatInstance } from '../../../services/chat';
import { chatFixture, type BodyChat, type ChatFixture } from '../../e2e/chat/fixture';
import { startFakeOpenAi, type FakeOpenAi } from '../../shared/fakes/openai-upstream';

/**
 * The chat proxy in process and its REST client in front of the same running server must agree:
 * the same answers, streams, sources and refusals for the same questions and callers (each body read
 * as the REST edge reads it, then asked of both).
 */
let f: ChatFixture;
let upstream: FakeOpenAi;
let local: BodyChat;
let remote: BodyChat;
let catalogFile: string;

const ASPIRIN = 'What are the side effects of aspirin?';

beforeAll(async () => {
  upstream = await startFakeOpenAi({ answer: 'The upstream says aspirin upsets the stomach.' });
  process.env.E2E_CHAT_CONTRACT_KEY = 'chat-contract-oc-token-0123456789';
  catalogFile = join(tmpdir(), `catalog-chat-contract-${process.pid}-${Date.now()}.json`);
  writeFileSync(
    catalogFile,
    JSON.stringify({
      models: [
        ...DEFAULT_CATALOG.models,
        {
          id: 'oc-chat',
          group: 'A',
          kind: 'chat',
          contextLength: 4096,
          upstream: {
            provider: 'openai-compatible',
            baseUrl: `${upstream.url}/v1`,
            model: 'llama3.2',
            credentialEnv: 'E2E_CHAT_CONTRACT_KEY',
          },
        },
      ],
    }),
  );
  f = await chatFixture({ MODELS_CATALOG_FILE: catalogFile });
  local = f.byBody((f.platform.instances.chat as unknown as ChatInstance).service);
  remote = f.byBody(chatClient({ baseUrl: f.url }));
}, 60_000);
afterAll(async () => {
  await f?.stop();
  await upstream?.close();
  rmSync(catalogFile, { force: true });
  delete process.env.E2E_CHAT_CONTRACT_KEY;
});

const body = (query: string, extra: Record<string, unknown> = {}, request: Record<string, unknown> = {}) =>
  f.body(query, extra, request) as { request: object };
const failure = (p: Promise<unknown>) =>
  p.then(
    () => 'no failure',
    (e: unknown) =>
      e instanceof PlatformError
        ? { kind: e.kind, message: e.message, ...('issues' in e ? { issues: (e as { issues: unknown }).issues } : {}) }
        : String(e),
  );
const drained = async (s: AnswerStream) => {
  const chunks: AnswerChunk[] = [];
  for await (const c of s.chunks) chunks.push(c);
  return { ...s, chunks };
};

describe('the chat proxy contract (in process and REST client agree)', () => {
  it('generate_answer: the same answer', async () => {
    const [x, y] = await Promise.all([local.generateAnswer(body(ASPIRIN)), remote.generateAnswer(body(ASPIRIN))]);
    expect(y).toEqual(x);
    expect(x.finish_reason).toBe('stop');
  });

  it('a stream: the same chunks, search text, model and sources (passages and their texts)', async () => {
    const x = await drained(await local.streamAnswer(body(ASPIRIN)));
    const y = await drained(await remote.streamAnswer(body(ASPIRIN)));
    expect(y).toEqual(x);
    expect(x.sources.length).toBeGreaterThan(0);
    expect(x.sources[0]).toMatchObject({ citation: 1, title: 'Aspirin', category: 'search' });
    expect(x.chunks.at(-1)!.finish_reason).toBe('stop');
  });

  it("a stream grounded in the user's uploaded file too: the same sources of both kinds", async () => {
    await f.ingest({ title: 'Trip notes', file_name: 'trip-notes.txt', content: 'The ferry leaves at seven.\n\nBring a warm coat.' });
    const files = { kvp: { files: [{ file_name: 'trip-notes.txt', source_category: 'InputFile' }] } };
    const x = await drained(await local.streamAnswer(body('When does the ferry leave?', {}, files)));
    const y = await drained(await remote.streamAnswer(body('When does the ferry leave?', {}, files)));
    expect(y.sources).toEqual(x.sources);
    expect(x.sources.some((s) => s.category === 'InputFile' && s.text.includes('\n\nBring a warm coat.'))).toBe(true);
  });

  it('get_sources: the same sources', async () => {
    const req = { request: { ...body(ASPIRIN).request, query: ASPIRIN }, chat_hist: [] };
    const [x, y] = await Promise.all([local.getSources(req), remote.getSources(req)]);
    expect(y).toEqual(x);
  });

  it('refuses alike, before the first chunk: no token, another tenant, an empty query, an unknown model, a bad key', async () => {
    const cases = [
      body(ASPIRIN, {}, { user_cred: { client: { tenant_id: 'tenant-a' } } }),
      body(ASPIRIN, {}, { user_cred: { token: f.tokenB, client: { tenant_id: 'tenant-a' } } }),
      body('   '),
      body(ASPIRIN, { model_info: { modelId: 'no-such-model' } }),
      body(ASPIRIN, { api_key: 'lmk-not-a-key' }),
    ];
    for (const c of cases) {
      const x = await failure(local.streamAnswer(c));
      expect(x).not.toBe('no failure');
      expect(await failure(remote.streamAnswer(c))).toEqual(x);
      expect(await failure(remote.generateAnswer(c))).toEqual(await failure(local.generateAnswer(c)));
    }
  });

  it('leaving a remote stream early closes the connection, which stops the model call', async () => {
    upstream.script({ answer: 'One two three four five six seven eight nine ten eleven twelve.', stallAfter: 3 });
    const s = await remote.streamAnswer(body(ASPIRIN, { model_info: { modelId: 'oc-chat' } }));
    for await (const c of s.chunks) {
      expect(c.response).toBe('One two three ');
      break;
    }
    await upstream.requests.at(-1)!.cut;
  });
});
