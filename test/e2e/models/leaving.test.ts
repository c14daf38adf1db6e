import { connect, constants } from 'node:http2';
import { leave, linesOf, nextUpstream, ONE_499, startLeaving, troubleSince, TWO_PIECES, type Leaving } from './leaving';

/**
 * A client that leaves, mid-request (the upstream has not answered) or mid-stream (it has sent two
 * pieces), on every door of the model gateway: the call stops (the gateway cuts its upstream
 * request), and the log says so once, at info level, as a 499, with no error line and no stack
 * (issue 30: the doors logged each leaving client as an 'unhandled error' with its stack trace).
 */
const MESSAGES = [{ role: 'user', content: 'Count slowly, please.' }];
const DOORS: { name: string; path: string; body: (stream: boolean) => unknown; streams?: false }[] = [
  {
    name: 'Azure chat completions',
    path: '/proxy/api/v1/azure/openai/deployments/oc-chat/chat/completions?api-version=2024-10-21',
    body: (stream) => ({ messages: MESSAGES, stream }),
  },
  {
    name: 'OpenAI chat completions',
    path: '/proxy/api/v1/chat/completions',
    body: (stream) => ({ model: 'oc-chat', messages: MESSAGES, stream }),
  },
  {
    name: 'Azure v1 chat completions',
    path: '/proxy/api/v1/azure/openai/v1/chat/completions',
    body: (stream) => ({ model: 'oc-chat', messages: MESSAGES, stream }),
  },
  {
    name: 'Azure embeddings',
    path: '/proxy/api/v1/azure/openai/deployments/oc-embed/embeddings?api-version=2024-10-21',
    body: () => ({ input: 'Count slowly.' }),
    streams: false,
  },
  {
    name: 'OpenAI Responses',
    path: '/proxy/api/v1/responses',
    body: (stream) => ({ model: 'oc-chat', input: 'Count slowly, please.', stream }),
  },
  {
    name: 'Anthropic Messages',
    path: '/proxy/api/v1/anthropic/v1/messages',
    body: (stream) => ({ model: 'oc-chat', max_tokens: 100, messages: MESSAGES, stream }),
  },
  {
    name: 'Bedrock family 1 (Anthropic)',
    path: '/proxy/api/v1/bedrock/v1/messages/anthropic?modelId=oc-chat',
    body: (stream) => ({ anthropic_version: 'bedrock-2023-05-31', max_tokens: 100, messages: MESSAGES, stream }),
  },
  {
    name: 'Gemini',
    path: '/proxy/api/v1/gemini/models/oc-chat:generateContent',
    body: () => ({ contents: [{ role: 'user', parts: [{ text: 'Count slowly.' }] }] }),
  },
  {
    name: 'Bedrock Converse',
    path: '/proxy/api/v1/bedrock/model/oc-chat/converse',
    body: () => ({ messages: [{ role: 'user', content: [{ text: 'Count slowly.' }] }] }),
  },
  {
    name: 'Bedrock InvokeModel',
    path: '/proxy/api/v1/bedrock/model/oc-chat/invoke',
    body: () => ({ anthropic_version: 'bedrock-2023-05-31', max_tokens: 100, messages: MESSAGES }),
  },
];
/** The streamed variant of the doors whose streaming is another path. */
const streamPath = (path: string) =>
  path
    .replace(':generateContent', ':streamGenerateContent?alt=sse')
    .replace('/converse', '/converse-stream')
    .replace('/invoke', '/invoke-with-response-stream');

let l: Leaving;
beforeAll(async () => {
  l = await startLeaving();
}, 60_000);
afterAll(() => l?.stop());

describe('a client that leaves a model door is a 499 at info level, once, never an error', () => {
  let n = 0;
  for (const door of DOORS) {
    for (const midStream of door.streams === false ? [false] : [false, true]) {
      it(`${door.name}, ${midStream ? 'mid-stream' : 'mid-request'}`, async () => {
        const from = l.lines.length;
        const reqId = `leave-${++n}-${Date.now()}`;
        const path =
          midStream && !door.path.includes('chat/completions') && !door.path.includes('messages') && !door.path.includes('responses')
            ? streamPath(door.path)
            : door.path;
        await leave(l, { path, headers: { 'api-key': l.apiKey, 'x-request-id': reqId }, body: door.body(midStream), midStream });
        expect(await linesOf(l, reqId)).toEqual(ONE_499);
        expect(troubleSince(l, from)).toEqual([]);
      });
    }
  }

  // The graph's streamed chat (the models subgraph's chatStream) over GraphQL over SSE.
  for (const midStream of [false, true]) {
    it(`GraphQL chatStream over SSE, ${midStream ? 'mid-stream' : 'mid-request'}`, async () => {
      const from = l.lines.length;
      const reqId = `leave-graph-${++n}-${Date.now()}`;
      const query = 'subscription Leaving($i: ChatInput!) { chatStream(input: $i) { content finishReason } }';
      await leave(l, {
        path: '/graphql',
        headers: { 'api-key': l.apiKey, accept: 'text/event-stream', 'x-request-id': reqId },
        body: { query, variables: { i: { model: 'oc-chat', messages: [{ role: 'USER', content: 'Count slowly, please.' }] } } },
        midStream,
      });
      expect(await linesOf(l, reqId)).toEqual(ONE_499);
      expect(troubleSince(l, from)).toEqual([]);
    });
  }

  it('a real upstream failure is still one: 502 logged as an error before the answer, the error event midway', async () => {
    const from = l.lines.length;
    const path = '/proxy/api/v1/azure/openai/deployments/oc-chat/chat/completions?api-version=2024-10-21';
    l.upstream.script({ reset: true });
    const before = await fetch(l.url + path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'api-key': l.apiKey, 'x-request-id': `fail-${from}` },
      body: JSON.stringify({ messages: MESSAGES }),
    });
    expect(before.status).toBe(502);
    expect(await linesOf(l, `fail-${from}`)).toEqual([expect.objectContaining({ level: 50, status: 502, msg: 'request' })]);
    l.upstream.script({ answer: ['one ', 'two ', 'three ', 'four '], resetAfter: 3 });
    const midway = await fetch(l.url + path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'api-key': l.apiKey, 'x-request-id': `fail-midway-${from}` },
      body: JSON.stringify({ messages: MESSAGES, stream: true }),
    });
    const text = await midway.text();
    expect(text).toContain('"error":{"message":');
    expect(await linesOf(l, `fail-midway-${from}`)).toEqual([expect.objectContaining({ level: 30, status: 200 })]);
  });

  it('over HTTP/2 (h2c, as the AWS SDK calls the Bedrock paths): a stream the client cancels midway', async () => {
    const from = l.lines.length;
    const reqId = `leave-h2-${Date.now()}`;
    l.upstream.script(TWO_PIECES);
    const seen = l.upstream.requests.length;
    const session = connect(l.url);
    try {
      const stream = session.request({
        ':method': 'POST',
        ':path': '/proxy/api/v1/bedrock/model/oc-chat/converse-stream',
        'content-type': 'application/json',
        authorization: `Bearer ${l.apiKey}`,
        'x-request-id': reqId,
      });
      stream.end(JSON.stringify({ messages: [{ role: 'user', content: [{ text: 'Count slowly.' }] }] }));
      await new Promise((resolve) => stream.once('data', resolve));
      stream.close(constants.NGHTTP2_CANCEL);
      await (
        await nextUpstream(l, seen)
      ).cut;
      expect(await linesOf(l, reqId)).toEqual(ONE_499);
      expect(troubleSince(l, from)).toEqual([]);
    } finally {
      session.destroy();
    }
  });
});
