/**
 * The four requests `npm run bench:builds` times on each build, every answer checked:
 * - token issue: the client-credentials grant of the demo client (`npm run bench`'s target);
 * - model chat: a non-streamed chat completion on the OpenAI-compatible door (model in the body),
 *   answered by the fake upstream through the catalog's `openai-compatible` provider, cache and
 *   guards off (`npm run bench:models`'s prompt);
 * - streamed chat: the chat proxy's `POST /api/stream_generate_answer` (`npm run bench:chat`'s
 *   request), read to its end: time to the first chunk and to the whole answer;
 * - GraphQL: a one-subgraph query, the models catalog, with the demo LM key.
 */
import { performance } from 'node:perf_hooks';
import { Client } from 'undici';
import { chatBody, CHAT_MODEL, userToken } from '../chat/setup';
import { streamOnce } from '../chat/stream';
import { CHAT_PATH } from '../chat/ways';
import { chatBody as promptBody } from '../models/targets';
import { isObject } from '../shared/http-client';
import { load, verify, type Target } from '../shared/load';
import { percentile } from '../shared/scifact';
import { tokenTarget } from '../token/targets';
import type { Run } from './figures';
import type { Build } from './setup';

export interface Scenario {
  name: string;
  /** What is sent, for the header. */
  what: string;
  /** Checks one answer, then keeps `concurrency` requests in flight for `seconds`. */
  run(b: Build, seconds: number, concurrency: number): Promise<Run>;
}

const loaded = (name: string, what: string, target: (b: Build) => Target): Scenario => ({
  name,
  what,
  async run(b, seconds, concurrency) {
    const t = target(b);
    await verify(t);
    return load(t, seconds, concurrency);
  },
});

const json = { 'content-type': 'application/json' };
const MODELS_QUERY = '{ models { id contextLength } }';
/** A chat answer (streamed or not) of the fake upstream ends with a stop. */
const STOP = '"finish_reason":"stop"';

const tokenIssue = loaded('token issue', 'POST /auth/api/v1/oauth/connect/token?client_id&client_secret (the demo client, RS256)', (b) => ({
  ...tokenTarget(b.p.url, b.p.boot),
  name: 'token issue',
}));

const modelChat = loaded(
  'model chat',
  `POST /proxy/api/v1/chat/completions, model ${CHAT_MODEL} (fake upstream, answers at once), not streamed`,
  (b) => ({
    name: 'model chat',
    method: 'POST',
    url: `${b.p.url}/proxy/api/v1/chat/completions`,
    headers: { ...json, 'api-key': b.apiKey },
    body: JSON.stringify({ ...(JSON.parse(promptBody(false)) as object), model: CHAT_MODEL }),
    check: (j) =>
      isObject(j) &&
      Array.isArray(j.choices) &&
      typeof (j.choices[0] as { message?: { content?: unknown } })?.message?.content === 'string',
    marker: STOP,
  }),
);

const graphql = loaded('GraphQL', `POST /graphql \`${MODELS_QUERY}\` with the demo LM key`, (b) => ({
  name: 'GraphQL',
  method: 'POST',
  url: `${b.p.url}/graphql`,
  headers: { ...json, 'api-key': b.apiKey },
  body: JSON.stringify({ query: MODELS_QUERY }),
  check: (j) => {
    const r = j as { data?: { models?: { id?: unknown }[] }; errors?: unknown } | undefined;
    return !r?.errors && Array.isArray(r?.data?.models) && r.data.models.some((m) => m.id === CHAT_MODEL);
  },
  marker: `"id":"${CHAT_MODEL}"`,
}));

const QUESTIONS = ['What are the side effects of aspirin?', 'Why do glaciers retreat?', 'When does a volcano erupt?'];

/**
 * `concurrency` loops, each on its own keep-alive connection, asking question after question and
 * reading each stream to its end (autocannon cannot time a stream's first chunk). Only answers
 * finished inside the window count; a stream that is not 200 with every piece and a stop is an error.
 */
function streamedChat(pieces: number): Scenario {
  return {
    name: 'streamed chat',
    what: `POST ${CHAT_PATH} (the chat proxy: retrieval over 3 documents, then ${CHAT_MODEL} streamed, ${pieces} pieces)`,
    async run(b, seconds, concurrency) {
      const ask = async (client: Client, i: number) =>
        streamOnce(client, CHAT_PATH, chatBody(b, await userToken(b.tok), QUESTIONS[i % QUESTIONS.length]), json, pieces, STOP);
      const check = new Client(b.p.url);
      await ask(check, 0).finally(() => check.close());
      const whole: number[] = [];
      const first: number[] = [];
      let errors = 0;
      let firstError = '';
      let next = 0;
      const end = performance.now() + seconds * 1000;
      const loop = async () => {
        const client = new Client(b.p.url, { pipelining: 1, keepAliveTimeout: 30_000 });
        try {
          while (performance.now() < end) {
            try {
              const s = await ask(client, next++);
              if (performance.now() > end) break;
              whole.push(s.whole);
              first.push(s.first);
            } catch (err) {
              errors++;
              firstError ||= (err as Error).message.slice(0, 300);
            }
          }
        } finally {
          await client.close();
        }
      };
      await Promise.all(Array.from({ length: concurrency }, loop));
      return {
        name: 'streamed chat',
        rps: whole.length / seconds,
        requests: whole.length,
        p50: percentile(whole, 0.5),
        p99: percentile(whole, 0.99),
        firstP50: percentile(first, 0.5),
        firstP99: percentile(first, 0.99),
        non2xx: 0,
        errors,
        badBodies: 0,
        codes: errors ? `errors: ${errors}, the first: ${firstError}` : '',
      };
    },
  };
}

export const scenarios = (pieces: number): Scenario[] => [tokenIssue, modelChat, streamedChat(pieces), graphql];
