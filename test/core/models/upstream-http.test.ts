import { BadRequest, RateLimited, UpstreamFailed, UpstreamTimeout } from '../../../core/shared/errors';
import { upstreamHttp, type UpstreamHttp } from '../../../core/models/upstream/http';
import { freePort } from '../../e2e/shared/server';
import { startFakeOpenAi, type FakeOpenAi } from '../../shared/fakes/openai-upstream';

/** The pooled upstream client against a fake OpenAI-wire server: retries, timeouts, aborts, and how failures map. */
describe('upstream HTTP client', () => {
  let fake: FakeOpenAi;
  let http: UpstreamHttp;
  const KEY = 'sk-upstream-secret-123456';
  const chat = (extra: { signal?: AbortSignal; body?: object } = {}) =>
    http.request({
      vendor: 'Fake OpenAI',
      url: `${fake.url}/v1/chat/completions`,
      signal: extra.signal,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
      body: JSON.stringify(extra.body ?? { model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
    });
  const failure = (p: Promise<unknown>) =>
    p.then(
      () => {
        throw new Error('expected a failure');
      },
      (e: unknown) => e as Error & { code?: string },
    );

  beforeEach(async () => {
    fake = await startFakeOpenAi();
    http = upstreamHttp({ connectTimeoutMs: 1000, readTimeoutMs: 300, retries: 2, retryBaseMs: 5 });
  });
  afterEach(async () => {
    await http.close();
    await fake.close();
  });

  it('answers a 2xx as JSON and keeps the connection alive for the next call', async () => {
    const a = (await (await chat()).json()) as any;
    // undici hands the connection back to its pool a tick after the body's end.
    await new Promise((r) => setImmediate(r));
    const b = (await (await chat()).json()) as any;
    expect(a.choices[0].message.content).toContain('Sea levels rise');
    expect(b.object).toBe('chat.completion');
    expect(fake.requests).toHaveLength(2);
    expect(fake.connections).toBe(1);
  });

  it('retries 5xx and 429 before the answer, then succeeds', async () => {
    fake.script({ status: 500 }, { status: 429 }, { answer: 'third time lucky' });
    const body = (await (await chat()).json()) as any;
    expect(body.choices[0].message.content).toBe('third time lucky');
    expect(fake.requests).toHaveLength(3);
  });

  it('gives up after the retries: 5xx is 502 upstream_error, 429 is 429 upstream_rate_limited', async () => {
    fake.script({ status: 503 }, { status: 500 }, { status: 502 });
    const e = await failure(chat());
    expect(e).toBeInstanceOf(UpstreamFailed);
    expect(e.code).toBe('upstream_error');
    expect(e.message).toContain('HTTP 502');
    expect(fake.requests).toHaveLength(3);

    fake.script({ status: 429 }, { status: 429 }, { status: 429, headers: { 'retry-after': '7' } });
    const r = await failure(chat());
    expect(r).toBeInstanceOf(RateLimited);
    expect(r).toMatchObject({ code: 'upstream_rate_limited', retryAfterSeconds: 7 });
  });

  it('does not wait out a Retry-After longer than the read timeout', async () => {
    fake.script({ status: 429, headers: { 'retry-after': '30' } });
    const e = await failure(chat());
    expect(e).toMatchObject({ code: 'upstream_rate_limited', retryAfterSeconds: 30 });
    expect(fake.requests).toHaveLength(1);
  });

  it("honours Azure's retry-after-ms and an HTTP-date Retry-After within the read timeout", async () => {
    fake.script({ status: 429, headers: { 'retry-after-ms': '40', 'retry-after': '30' } }, { answer: 'after 40 ms' });
    const started = Date.now();
    expect(((await (await chat()).json()) as any).choices[0].message.content).toBe('after 40 ms');
    expect(Date.now() - started).toBeGreaterThanOrEqual(35);
    expect(fake.requests).toHaveLength(2);

    fake.script({ status: 503, headers: { 'retry-after': new Date(Date.now() - 1000).toUTCString() } }, { answer: 'at once' });
    expect(((await (await chat()).json()) as any).choices[0].message.content).toBe('at once');
    fake.script({ status: 429, headers: { 'retry-after-ms': '5000' } });
    expect(await failure(chat())).toMatchObject({ code: 'upstream_rate_limited', retryAfterSeconds: 5 });
    expect(fake.requests).toHaveLength(5);
  });

  it('sends a FormData body as multipart, and all of it again on a retry', async () => {
    const form = new FormData();
    form.append('file', new Blob([Buffer.from('RIFF-fake-wave')], { type: 'audio/wav' }), 'hello.wav');
    form.append('response_format', 'verbose_json');
    fake.script({ status: 500 }, { reset: true });
    const res = await http.request({ vendor: 'Fake OpenAI', url: `${fake.url}/v1/audio/transcriptions`, body: form });
    expect(((await res.json()) as any).text).toBe('Hello there. General Kenobi.');
    expect(fake.requests).toHaveLength(3);
    const unbounded = (body: Buffer) => body.toString('latin1').replace(/----formdata-undici-\d+/g, 'BOUNDARY');
    for (const r of fake.requests) {
      expect(r.headers['content-type']).toMatch(/^multipart\/form-data; boundary=----formdata-undici-\d+$/);
      expect(Number(r.headers['content-length'])).toBe(r.body.length);
      expect(unbounded(r.body)).toBe(unbounded(fake.requests[0].body));
    }
    expect(fake.requests[2].body.toString()).toContain(
      'name="file"; filename="hello.wav"\r\nContent-Type: audio/wav\r\n\r\nRIFF-fake-wave\r\n',
    );
  });

  it('maps 401/403/404 to 502 upstream_misconfigured without the credential', async () => {
    for (const status of [401, 403, 404]) {
      fake.script({ status, message: `Incorrect API key provided: ${KEY}` });
      const e = await failure(chat());
      expect(e).toBeInstanceOf(UpstreamFailed);
      expect(e.code).toBe('upstream_misconfigured');
      expect(e.message).toContain('Fake OpenAI');
      expect(e.message).toContain(`HTTP ${status}`);
      expect(e.message).not.toContain(KEY);
    }
    expect(fake.requests.every((r) => r.headers.authorization === `Bearer ${KEY}`)).toBe(true);
  });

  it('passes a 400 through with the vendor message (credential blotted), content_filter named', async () => {
    fake.script({ status: 400, message: 'max_tokens is too large' });
    expect(await failure(chat())).toMatchObject({ message: 'max_tokens is too large', code: 'upstream_rejected' });
    fake.script({ status: 400, message: `bad key ${KEY} in body` });
    const blotted = await failure(chat());
    expect(blotted).toBeInstanceOf(BadRequest);
    expect(blotted.message).not.toContain(KEY);
    fake.script({ status: 400, message: 'The response was filtered', code: 'content_filter' });
    expect(await failure(chat())).toMatchObject({ code: 'content_filter', message: 'The response was filtered' });
    fake.script({ status: 422, message: 'unprocessable' });
    expect(await failure(chat())).toMatchObject({ code: 'upstream_rejected' });
    expect(fake.requests).toHaveLength(4);
  });

  it('answers a body that is not JSON with 502 upstream_bad_response', async () => {
    fake.script({ raw: '<html>gateway</html>' });
    const res = await chat();
    expect(await failure(res.json())).toMatchObject({ code: 'upstream_bad_response' });
  });

  it('times out an upstream that never answers (504), without retrying it', async () => {
    fake.script({ stall: true });
    const e = await failure(chat());
    expect(e).toBeInstanceOf(UpstreamTimeout);
    expect(e.code).toBe('upstream_timeout');
    expect(fake.requests).toHaveLength(1);
  });

  it('times out a body that goes silent midway', async () => {
    fake.script({ answer: 'one two three four five six seven', stallAfter: 2 });
    const res = await chat({ body: { model: 'm', stream: true, messages: [] } });
    const seen: string[] = [];
    const e = await failure(
      (async () => {
        for await (const c of res.body) seen.push(c.toString());
      })(),
    );
    expect(seen.join('')).toContain('"role":"assistant"');
    expect(e).toBeInstanceOf(UpstreamTimeout);
  });

  it('retries a reset connection, and maps one that keeps resetting to 502 upstream_unavailable', async () => {
    fake.script({ reset: true }, { answer: 'after the reset' });
    expect(((await (await chat()).json()) as any).choices[0].message.content).toBe('after the reset');
    fake.script({ reset: true }, { reset: true }, { reset: true });
    const e = await failure(chat());
    expect(e).toMatchObject({ code: 'upstream_unavailable' });
    expect(fake.requests).toHaveLength(5);
  });

  it('maps a refused connection to 502 upstream_unavailable', async () => {
    const port = await freePort();
    const e = await failure(http.request({ vendor: 'Nobody', url: `http://127.0.0.1:${port}/v1/embeddings`, body: '{}' }));
    expect(e).toBeInstanceOf(UpstreamFailed);
    expect(e.code).toBe('upstream_unavailable');
  });

  it('aborts while waiting for the answer: the upstream sees the connection close', async () => {
    fake.script({ stall: true });
    const controller = new AbortController();
    const pending = failure(chat({ signal: controller.signal }));
    while (!fake.requests.length) await new Promise((r) => setImmediate(r));
    controller.abort();
    expect((await pending).name).toBe('AbortError');
    await fake.requests[0].cut;
    expect(fake.requests[0].wasCut).toBe(true);
  });

  it('aborts during the backoff between two attempts', async () => {
    const slow = upstreamHttp({ connectTimeoutMs: 1000, readTimeoutMs: 300, retries: 3, retryBaseMs: 60_000 });
    try {
      fake.script({ status: 500 });
      const controller = new AbortController();
      const pending = failure(
        slow.request({ vendor: 'Fake', url: `${fake.url}/v1/embeddings`, body: '{"input":"x"}', signal: controller.signal }),
      );
      while (!fake.requests.length) await new Promise((r) => setImmediate(r));
      await new Promise((r) => setTimeout(r, 20));
      controller.abort();
      expect((await pending).name).toBe('AbortError');
      expect(fake.requests).toHaveLength(1);
    } finally {
      await slow.close();
    }
  });
});
