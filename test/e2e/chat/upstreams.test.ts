import { rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_CATALOG } from '../../../core/models/catalog/catalog';
import { startFakeOpenAi, type FakeOpenAi } from '../../shared/fakes/openai-upstream';
import { chatFixture, type ChatFixture } from './fixture';
import { post, sseChunks } from './wire';
import { startInTemp, type Started } from '../shared/server';

/**
 * The chat proxy's upstreams, over real servers: `platform serve chat` reaching a search service
 * that is down or never answers (the proxy served apart from search and models, over HTTP: several
 * servers), and the model call a REST client abandons by closing its socket midway (only a real
 * connection can close). Everything else the REST face does is tested in process in test/rest/chat.
 */
let f: ChatFixture;
let upstream: FakeOpenAi;
const catalog = join(tmpdir(), `catalog-chat-upstreams-${process.pid}.json`);

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
      ],
    }),
  );
  // The default read timeout (60 s): the upstream's stall can end only when the client leaves.
  f = await chatFixture({ MODELS_CATALOG_FILE: catalog });
}, 60_000);
afterAll(async () => {
  await f?.stop();
  await upstream?.close();
  rmSync(catalog, { force: true });
});

describe('the chat proxy alone, when the search service fails', () => {
  let stalled: Server;
  let stalledUrl: string;
  const chats: Started[] = [];
  const chatAlone = async (searchUrl: string) => {
    const c = await startInTemp('chat', {
      AUTH_ISSUER_URL: f.url,
      SEARCH_URL: searchUrl,
      MODELS_URL: f.url,
      CHAT_SEARCH_TIMEOUT_MS: '3000',
    });
    chats.push(c);
    return c;
  };

  beforeAll(async () => {
    stalled = createServer(() => undefined);
    await new Promise<void>((resolve) => stalled.listen(0, '127.0.0.1', resolve));
    stalledUrl = `http://127.0.0.1:${(stalled.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const c of chats) await c.stop();
    stalled?.closeAllConnections();
    await new Promise((resolve) => stalled?.close(resolve));
  });

  it('answers as the platform does when the search service is up', async () => {
    const chat = await chatAlone(f.url);
    const r = await post(`${chat.url}/api/generate_answer`, f.body('What are the side effects of aspirin?'));
    expect(r.status).toBe(200);
    expect(JSON.parse(r.text).response).toContain('stomach upset');
  });

  it('is 502 with a detail when the search service is down, for answers and streams alike', async () => {
    const chat = await chatAlone('http://127.0.0.1:9');
    const ask = f.body('What are the side effects of aspirin?');
    const bodies = {
      generate_answer: ask,
      stream_generate_answer: ask,
      get_sources: { request: { ...(ask.request as object), query: ask.query } },
    };
    for (const [path, body] of Object.entries(bodies)) {
      const r = await post(`${chat.url}/api/${path}`, body);
      expect(r.status).toBe(502);
      expect(JSON.parse(r.text).detail).toMatch(/unreachable/);
    }
  });

  it('is 504 naming the semantic search when the search service stalls past CHAT_SEARCH_TIMEOUT_MS', async () => {
    const chat = await chatAlone(stalledUrl);
    const r = await post(`${chat.url}/api/stream_generate_answer`, f.body('What are the side effects of aspirin?'));
    expect(r.status).toBe(504);
    expect(JSON.parse(r.text).detail).toBe('the semantic search did not finish within 3000 ms');
    expect(sseChunks(r.text).chunks).toEqual([]);
  });
});

describe('the model upstream', () => {
  /** A body for the fake upstream's model, with the gateway's cache off so every call reaches it. */
  const upBody = () =>
    f.body('What are the side effects of aspirin?', { model_info: { modelId: 'up-chat' }, api_key: `${f.apiKey}/{"is_cache": 0}` });

  it('aborts the model call when the client disconnects midway', async () => {
    upstream.script({ stallAfter: 2 });
    const leave = new AbortController();
    const res = await fetch(`${f.url}/api/stream_generate_answer`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(upBody()),
      signal: leave.signal,
    });
    const reader = res.body!.getReader();
    await reader.read();
    const sent = upstream.requests.at(-1)!;
    expect(sent.wasCut).toBe(false);
    leave.abort();
    await sent.cut;
    expect(sent.wasCut).toBe(true);
  });
});
