import type { Client } from 'graphql-ws';
import type { TokenCore } from '../../core/token';
import { sseChunks } from '../e2e/chat/wire';
import { ANSWER_STREAM, multipartParts, postOperation, run, socketClient, sseResults } from '../e2e/shared/subscription-wire';
import { readUntil } from '../shared/sse';

/** What is left of a body `readUntil` let go of, to its end. */
async function readRest(body: ReadableStream<Uint8Array>): Promise<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return text + decoder.decode();
    text += decoder.decode(value, { stream: true });
  }
}
import { answeringPlatform, ASPIRIN, type Answering } from './answering';

/**
 * A stream already running when its caller's session is ended (here by RFC 7009 revocation of its
 * access token) ends with one UNAUTHENTICATED error, and the model call behind it stops: a
 * subscription over graphql-ws, GraphQL over SSE and multipart, and the chat proxy's REST stream
 * (its last chunk `finish_reason: error`, saying why). The upstream model sends three pieces and
 * then stalls, so the answer is still running when the session ends.
 */
let platform: Answering;
let realm: string;
let n = 0;

beforeAll(async () => {
  platform = await answeringPlatform('revoked-streams');
  realm = platform.f.platform.bootstrap!.values.realm!;
}, 60_000);
afterAll(async () => {
  await platform?.stop();
});

const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map(async (c) => c.dispose()));
});

/** A session of its own (a client of tenant-a with the read role): its access token. */
async function freshToken(): Promise<string> {
  const token = platform.f.platform.instances.token as unknown as TokenCore;
  const clientId = `stream-${n++}`;
  const c = await token.admin.createClient({ realm, clientId, tenantId: 'tenant-a', roles: ['search:read'] });
  const issued = await token.service.issueForClient({ realm, client_id: clientId, client_secret: c.client_secret });
  return issued.access_token;
}

const revoke = async (accessToken: string) => {
  const res = await fetch(`${platform.f.url}/auth/api/v1/oauth/connect/revoke`, {
    method: 'POST',
    body: new URLSearchParams({ realm, token: accessToken }),
  });
  expect(res.status).toBe(200);
};

const stalling = () =>
  platform.upstream.script({ answer: 'One two three four five six seven eight nine ten eleven twelve.', stallAfter: 3 });
const input = { query: ASPIRIN, modelId: 'oc-chat' };
const REVOKED = { message: 'Invalid token: revoked', extensions: expect.objectContaining({ code: 'UNAUTHENTICATED' }) };

it('graphql-ws: ends the running subscription with UNAUTHENTICATED, stops the model call, and refuses new operations on the socket', async () => {
  const token = await freshToken();
  stalling();
  const client = socketClient(platform.f.url, { authorization: `Bearer ${token}`, 'api-key': platform.f.apiKey }, true);
  clients.push(client);
  const { results, error } = await run(client, ANSWER_STREAM, { input }, (r) => {
    if (r.data?.answerStream?.response) void revoke(token);
  });
  expect(error).toBeUndefined();
  expect(results[0].data.answerStream).toMatchObject({ response: 'One two three ', finishReason: null });
  expect(results.at(-1)).toEqual({ errors: [REVOKED] });
  await platform.upstream.requests.at(-1)!.cut;

  const again = await run(client, 'query { viewer { username } }', {});
  expect(again.results[0].errors).toEqual([
    expect.objectContaining({ message: 'Invalid token: revoked', extensions: expect.objectContaining({ code: 'UNAUTHENTICATED' }) }),
  ]);
});

it('GraphQL over SSE and multipart: the stream ends with UNAUTHENTICATED, and the model call stops', async () => {
  for (const accept of ['text/event-stream', 'multipart/mixed; subscriptionSpec="1.0", application/json']) {
    const token = await freshToken();
    stalling();
    const res = await postOperation(
      platform.f.url,
      { query: ANSWER_STREAM, variables: { input } },
      { accept, authorization: `Bearer ${token}`, 'api-key': platform.f.apiKey },
    );
    expect(res.status).toBe(200);
    const body = res.body!;
    const first = await readUntil(body, 'One two three');
    await revoke(token);
    const text = first + (await readRest(body));
    const results =
      accept === 'text/event-stream'
        ? sseResults(text).results
        : multipartParts(text)
            .parts.filter((p) => p.payload)
            .map((p) => p.payload);
    expect(results.at(-1)).toEqual({ errors: [REVOKED] });
    if (accept === 'text/event-stream') expect(sseResults(text).complete).toBe(true);
    else expect(multipartParts(text).closed).toBe(true);
    await platform.upstream.requests.at(-1)!.cut;
  }
});

it("the chat proxy's REST stream: ends with finish_reason error saying the token was revoked, then [DONE]", async () => {
  const token = await freshToken();
  stalling();
  const body = platform.f.body(
    ASPIRIN,
    { model_info: { modelId: 'oc-chat' } },
    { user_cred: { token, client: { tenant_id: 'tenant-a' } } },
  );
  const res = await fetch(`${platform.f.url}/api/stream_generate_answer`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  const stream = res.body!;
  const first = await readUntil(stream, 'One two three');
  await revoke(token);
  const { chunks, done } = sseChunks(first + (await readRest(stream)));
  expect(done).toBe(true);
  // The upstream sends two pieces before it stalls; the revocation may come between them.
  expect(chunks.map((c) => c.response).join('')).toMatch(/^One two three (four five six )?$/);
  expect(chunks.at(-1)).toEqual({
    generated_search_text: expect.any(String),
    response: '',
    finish_reason: 'error',
    detail: 'Invalid token: revoked',
  });
  await platform.upstream.requests.at(-1)!.cut;
});
