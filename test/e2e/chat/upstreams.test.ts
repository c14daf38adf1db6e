import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chatFixture, type ChatFixture } from './fixture';
import { post, sseChunks } from './wire';
import { startInTemp, type Started } from '../shared/server';

/** `platform serve chat` reaching a search service that is down, or that never answers. */
describe('the chat proxy alone, when the search service fails', () => {
  let f: ChatFixture;
  let stalled: Server;
  let stalledUrl: string;
  const chats: Started[] = [];
  const chatAlone = async (searchUrl: string) => {
    const c = await startInTemp('chat', { AUTH_ISSUER_URL: f.url, SEARCH_URL: searchUrl, MODELS_URL: f.url, CHAT_SEARCH_TIMEOUT_MS: '300' });
    chats.push(c);
    return c;
  };

  beforeAll(async () => {
    f = await chatFixture();
    stalled = createServer(() => undefined);
    await new Promise<void>((resolve) => stalled.listen(0, '127.0.0.1', resolve));
    stalledUrl = `http://127.0.0.1:${(stalled.address() as AddressInfo).port}`;
  }, 60_000);
  afterAll(async () => {
    for (const c of chats) await c.stop();
    stalled?.closeAllConnections();
    await new Promise((resolve) => stalled?.close(resolve));
    await f?.stop();
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
    const bodies = { generate_answer: ask, stream_generate_answer: ask, get_sources: { request: { ...(ask.request as object), query: ask.query } } };
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
    expect(JSON.parse(r.text).detail).toBe('the semantic search did not finish within 300 ms');
    expect(sseChunks(r.text).chunks).toEqual([]);
  });
});
