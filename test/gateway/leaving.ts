import { request } from 'node:http';
import { createClient } from 'graphql-sse';
import type { FakeOpenAi } from '../shared/fakes/openai-upstream';
import type { RecordedRequest } from '../shared/fakes/fake-http';
import { ANSWER_STREAM, postOperation } from '../e2e/shared/subscription-wire';
import { readUntil } from '../shared/sse';

/**
 * The ways a client leaves an answer at the gateway's /graphql, each of which must stop the model
 * call behind it: GraphQL over SSE (graphql-sse's client disposing, a fetch aborted, the socket
 * destroyed) and the generateAnswer mutation over plain HTTP (a fetch aborted). The fake upstream
 * streams three pieces of its answer and then stalls, so only the client leaving can end its
 * request; each test waits for the upstream to see its request cut (jest's timeout bounds the wait).
 */
export const TALKATIVE = 'One two three four five six seven eight nine ten eleven twelve.';

export interface LeavingSetup {
  /** The gateway's base URL. */
  base: string;
  upstream: FakeOpenAi;
  /** The caller's authorization and api-key. */
  headers: Record<string, string>;
}

const ASPIRIN = 'What are the side effects of aspirin?';
const VARIABLES = { input: { query: ASPIRIN, modelId: 'oc-chat' } };
const GENERATE = 'mutation($input: AskInput!) { generateAnswer(input: $input) { response model { id } } }';
const MODEL_CHAT = 'mutation { chat(input: { model: "oc-chat", messages: [{ role: USER, content: "Count to twelve." }] }) { content } }';

/** Resolves with the upstream's next chat request once it has arrived. */
async function nextUpstreamRequest(upstream: FakeOpenAi, seen: number): Promise<RecordedRequest> {
  while (upstream.requests.length <= seen) await new Promise((resolve) => setTimeout(resolve, 20));
  return upstream.requests[seen];
}

export function leaveEveryWay(setup: () => LeavingSetup) {
  const stalling = () => {
    const { upstream } = setup();
    upstream.script({ answer: TALKATIVE, stallAfter: 3 });
    return upstream.requests.length;
  };

  describe('a client leaving stops the model call', () => {
    it("GraphQL over SSE: graphql-sse's client disposing of the subscription", async () => {
      const { base, upstream, headers } = setup();
      const seen = stalling();
      const client = createClient({ url: `${base}/graphql`, headers, retryAttempts: 0 });
      let first!: (text: string) => void;
      const firstPiece = new Promise<string>((resolve) => (first = resolve));
      const dispose = client.subscribe<any>(
        { query: ANSWER_STREAM, variables: VARIABLES },
        {
          next: (r) => first(r.data?.answerStream?.response ?? JSON.stringify(r)),
          error: (e) => first(`error: ${JSON.stringify(e)}`),
          complete: () => undefined,
        },
      );
      expect(await firstPiece).toBe('One two three ');
      dispose();
      await (
        await nextUpstreamRequest(upstream, seen)
      ).cut;
      client.dispose();
    });

    it('GraphQL over SSE: the fetch aborted', async () => {
      const { base, upstream, headers } = setup();
      const seen = stalling();
      const leave = new AbortController();
      const res = await postOperation(
        base,
        { query: ANSWER_STREAM, variables: VARIABLES },
        { accept: 'text/event-stream', ...headers },
        leave.signal,
      );
      expect(res.status).toBe(200);
      expect(await readUntil(res.body!, 'One two three ')).toContain('event: next');
      leave.abort();
      await (
        await nextUpstreamRequest(upstream, seen)
      ).cut;
    });

    it('GraphQL over SSE: the socket destroyed', async () => {
      const { base, upstream, headers } = setup();
      const seen = stalling();
      const req = request(`${base}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...headers },
      });
      const firstPiece = new Promise<string>((resolve, reject) => {
        req.once('error', reject);
        req.once('response', (res) => {
          let got = '';
          res.on('data', (d) => {
            got += d;
            if (got.includes('One two three ')) resolve(got);
          });
        });
      });
      req.end(JSON.stringify({ query: ANSWER_STREAM, variables: VARIABLES }));
      expect(await firstPiece).toContain('event: next');
      req.once('error', () => undefined);
      req.socket!.destroy();
      await (
        await nextUpstreamRequest(upstream, seen)
      ).cut;
    });

    it('the generateAnswer mutation over plain HTTP: the fetch aborted while the model writes', async () => {
      const { base, upstream, headers } = setup();
      const seen = stalling();
      const leave = new AbortController();
      const answer = postOperation(
        base,
        { query: GENERATE, variables: VARIABLES },
        { accept: 'application/json', ...headers },
        leave.signal,
      );
      const asked = await nextUpstreamRequest(upstream, seen);
      leave.abort();
      await expect(answer).rejects.toThrow();
      await asked.cut;
    });

    it("the models subgraph's chat mutation over plain HTTP: the fetch aborted while the model writes", async () => {
      const { base, upstream, headers } = setup();
      const seen = upstream.requests.length;
      upstream.script({ stall: true }); // a whole answer that never comes
      const leave = new AbortController();
      const answer = postOperation(base, { query: MODEL_CHAT }, { accept: 'application/json', ...headers }, leave.signal);
      const asked = await nextUpstreamRequest(upstream, seen);
      leave.abort();
      await expect(answer).rejects.toThrow();
      await asked.cut;
    });
  });
}
