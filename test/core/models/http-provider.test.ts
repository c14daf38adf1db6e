import { UpstreamFailed } from '../../../core/shared/errors';
import { httpProvider } from '../../../core/models/upstream/http-provider';
import { DEFAULT_UPSTREAM, type UpstreamHttp, type UpstreamRequest, type UpstreamResponse } from '../../../core/models/upstream/http';
import type { HttpApi } from '../../../core/models/upstream/spec';
import { drain, modelOf } from './provider-helpers';

/** A pooled client that answers from memory: the requests it was sent, and the answer it gives. */
function fakeHttp(answer: { json?: unknown; events?: unknown[]; done?: boolean }) {
  const sent: UpstreamRequest[] = [];
  const http: UpstreamHttp = {
    settings: DEFAULT_UPSTREAM,
    async request(req) {
      sent.push(req);
      return {
        status: 200,
        headers: {},
        body: (async function* () {})(),
        json: async () => answer.json,
        text: async () => JSON.stringify(answer.json),
        events: async function* (onDone?: () => void) {
          for (const data of answer.events ?? []) yield { data } as never;
          if (answer.done) onDone?.();
        },
      } satisfies UpstreamResponse;
    },
    close: async () => {},
  };
  return { http, sent };
}

const order: string[] = [];
const api = (): HttpApi => ({
  vendor: 'Fake',
  auth: () => (order.push('auth'), { 'x-key': 'secret' }),
  chat: {
    url: (req, stream) => (order.push('url'), `https://fake/${req.model}${stream ? '?stream' : ''}`),
    body: (req) => (order.push('body'), { prompt: req.messages.map((m) => m.text).join(' ') }),
    stream: { framing: 'sse', decoder: () => (json) => json as never, doneMeans: 'stop' },
    whole: () => (json) => json as never,
  },
  embed: {
    url: () => 'https://fake/embed',
    body: (req) => ({ inputs: req.inputs }),
    answer: (json) => ({ vectors: (json as number[][]).map((v) => Float32Array.from(v)) }),
  },
});

describe('a provider as data, called by the upstream folder', () => {
  const model = modelOf({ provider: 'openai-compatible' });
  const messages = [{ role: 'user' as const, text: 'hello there' }];

  it('builds the address, then the credential, then the body, and sends JSON with the accept the call wants', async () => {
    order.length = 0;
    const { http, sent } = fakeHttp({
      events: [{ text: 'Hi' }, { text: '!', usage: { promptTokens: 2, completionTokens: 2 } }],
      done: true,
    });
    const provider = httpProvider(() => api())(model, { env: {}, http });
    const out = await drain(await provider.chat!({ model: 'm', messages }));
    expect(order).toEqual(['url', 'auth', 'body']);
    expect(sent[0]).toMatchObject({
      vendor: 'Fake',
      url: 'https://fake/m?stream',
      body: '{"prompt":"hello there"}',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-key': 'secret' },
    });
    // The stream ended with [DONE] and named no finish reason: the provider's doneMeans.
    expect(out).toMatchObject({ text: 'Hi!', finishReason: 'stop', usage: { promptTokens: 2, completionTokens: 2 } });
  });

  it("reads a whole answer with the provider's whole reader, and an unfinished stream without [DONE] as cut short", async () => {
    const whole = fakeHttp({ json: { text: 'All at once', finishReason: 'length' } });
    const a = await drain(
      await httpProvider(() => api())(model, { env: {}, http: whole.http }).chat!({ model: 'm', messages, stream: false }),
    );
    expect(whole.sent[0]).toMatchObject({ url: 'https://fake/m', headers: { accept: 'application/json' } });
    expect(a).toMatchObject({ text: 'All at once', finishReason: 'length' });

    const cut = fakeHttp({ events: [{ text: 'Hal' }] });
    const s = await httpProvider(() => api())(model, { env: {}, http: cut.http }).chat!({ model: 'm', messages });
    await expect(drain(s)).rejects.toBeInstanceOf(UpstreamFailed);
  });

  it('offers only the calls the data describes', async () => {
    const { http, sent } = fakeHttp({ json: [[1, 2]] });
    const provider = httpProvider(() => api())(model, { env: {}, http });
    expect(provider.generateImage).toBeUndefined();
    expect(provider.transcribe).toBeUndefined();
    expect(provider.takesTokenIds).toBeUndefined();
    const { vectors } = await provider.embed!({ model: 'e', inputs: ['a'] });
    expect([...vectors[0]]).toEqual([1, 2]);
    expect(sent[0]).toMatchObject({ url: 'https://fake/embed', body: '{"inputs":["a"]}', headers: { accept: 'application/json' } });
  });
});
