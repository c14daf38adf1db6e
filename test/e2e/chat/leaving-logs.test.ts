import WebSocket from 'ws';
import { leave, linesOf, nextUpstream, ONE_499, startLeaving, troubleSince, until, type Leaving } from '../models/leaving';

/**
 * A client that leaves a chat answer (the chat proxy's REST answers and streams, SSE and NDJSON; the
 * graph's mutation and subscriptions over SSE, multipart and graphql-ws) is a 499 at info level,
 * once: no error line, and no "the model failed midway" (issue 30: a cancelled stream logged that
 * warning, a cancelled whole answer an error with its stack). A real upstream failure midway is
 * still one: the stream ends with finish_reason error and the warning is logged.
 */
let l: Leaving;
let token: string;
const SUB = (name: string) => `subscription ${name}($i: AskInput!) { answerStream(input: $i) { response finishReason } }`;
const ask = { query: 'Count slowly, please.', modelId: 'oc-chat' };
const restBody = () => ({
  request: {
    user_cred: { token, client: { tenant_id: l.boot.tenant_id } },
    bot_config: { caller_version: '1' },
    task_process: { service: 'test' },
    kvp: {},
  },
  query: ask.query,
  api_key: `${l.apiKey}/{"is_cache": 0}`,
  model_info: { modelId: 'oc-chat' },
});
const graphHeaders = () => ({ authorization: `Bearer ${token}`, 'api-key': `${l.apiKey}/{"is_cache": 0}` });

beforeAll(async () => {
  l = await startLeaving();
  const login = await fetch(
    `${l.url}/auth/api/v1/oauth/connect/user/login?username=${l.boot.username}&password=${encodeURIComponent(l.boot.password)}`,
    { method: 'POST' },
  );
  token = ((await login.json()) as { access_token: string }).access_token;
}, 60_000);
afterAll(() => l?.stop());

describe('a client that leaves a chat answer is a 499 at info level, once, never an error', () => {
  let n = 0;
  const cases: { name: string; path: string; headers: () => Record<string, string>; body: () => unknown; midStream: boolean }[] = [
    { name: 'REST generate_answer, mid-request', path: '/api/generate_answer', headers: () => ({}), body: restBody, midStream: false },
    {
      name: 'REST stream_generate_answer, mid-request',
      path: '/api/stream_generate_answer',
      headers: () => ({}),
      body: restBody,
      midStream: false,
    },
    {
      name: 'REST stream_generate_answer (SSE), mid-stream',
      path: '/api/stream_generate_answer',
      headers: () => ({}),
      body: restBody,
      midStream: true,
    },
    {
      name: 'REST stream_generate_answer (NDJSON), mid-stream',
      path: '/api/stream_generate_answer',
      headers: () => ({ accept: 'application/x-ndjson' }),
      body: restBody,
      midStream: true,
    },
    {
      name: 'GraphQL generateAnswer, mid-request',
      path: '/graphql',
      headers: graphHeaders,
      midStream: false,
      body: () => ({ query: 'mutation($i: AskInput!) { generateAnswer(input: $i) { response } }', variables: { i: ask } }),
    },
    {
      name: 'GraphQL subscription over SSE, mid-stream',
      path: '/graphql',
      headers: () => ({ ...graphHeaders(), accept: 'text/event-stream' }),
      midStream: true,
      body: () => ({ query: SUB('OverSse'), variables: { i: ask } }),
    },
    {
      name: 'GraphQL subscription over multipart, mid-stream',
      path: '/graphql',
      headers: () => ({ ...graphHeaders(), accept: 'multipart/mixed;subscriptionSpec="1.0", application/json' }),
      midStream: true,
      body: () => ({ query: SUB('OverMultipart'), variables: { i: ask } }),
    },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const from = l.lines.length;
      const reqId = `chat-leave-${++n}-${Date.now()}`;
      await leave(l, { path: c.path, headers: { ...c.headers(), 'x-request-id': reqId }, body: c.body(), midStream: c.midStream });
      expect(await linesOf(l, reqId)).toEqual(ONE_499);
      expect(troubleSince(l, from)).toEqual([]);
    });
  }

  for (const how of ['closes its socket', 'completes the subscription', 'closes its socket before the first chunk'] as const) {
    it(`graphql-ws: a subscriber that ${how}${how.includes('first') ? '' : ' mid-stream'}`, async () => {
      const from = l.lines.length;
      const early = how.includes('first');
      const operationName = early ? 'ClosedEarly' : how === 'closes its socket' ? 'SocketClosed' : 'Completed';
      l.upstream.script(early ? { stall: true } : { answer: ['one ', 'two ', 'three ', 'four '], stallAfter: 3 });
      const seen = l.upstream.requests.length;
      const ws = new WebSocket(`${l.url.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws');
      const messages: any[] = [];
      ws.on('message', (d) => messages.push(JSON.parse(String(d))));
      await new Promise((resolve) => ws.once('open', resolve));
      ws.send(JSON.stringify({ type: 'connection_init', payload: graphHeaders() }));
      await until(() => messages.some((m) => m.type === 'connection_ack'), 'connection_ack');
      ws.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: SUB(operationName), operationName, variables: { i: ask } } }));
      // Mid-stream: once the first chunk came; early: once the model has the call (its upstream stalls).
      if (early) await nextUpstream(l, seen);
      else await until(() => messages.some((m) => m.type === 'next'), 'first chunk');
      if (how !== 'completes the subscription') ws.terminate();
      else ws.send(JSON.stringify({ id: '1', type: 'complete' }));
      await (
        await nextUpstream(l, seen)
      ).cut;
      const left = await until(() => {
        const mine = l.lines.slice(from).filter((x) => x.operationName === operationName);
        return mine.length ? mine : undefined;
      }, `graphql-ws line for ${operationName}`);
      expect(left).toEqual([
        expect.objectContaining({ level: 30, status: 499, msg: 'graphql-ws: the client left before the operation ended' }),
      ]);
      expect(troubleSince(l, from)).toEqual([]);
      ws.terminate();
    });
  }

  it('a real upstream failure midway is still one: finish_reason error, and the warning', async () => {
    const from = l.lines.length;
    l.upstream.script({ answer: ['one ', 'two ', 'three ', 'four '], resetAfter: 3 });
    const res = await fetch(`${l.url}/api/stream_generate_answer`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/x-ndjson' },
      body: JSON.stringify(restBody()),
    });
    const chunks = (await res.text())
      .trim()
      .split('\n')
      .map((x) => JSON.parse(x));
    expect(chunks.at(-1)).toMatchObject({ finish_reason: 'error' });
    await until(() => troubleSince(l, from).length, 'the warning');
    expect(troubleSince(l, from)).toEqual([expect.stringContaining('chat: the model failed midway')]);
  });
});
