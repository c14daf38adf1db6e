/**
 * The two ways `npm run bench:chat` asks the same question: "chat", `POST /api/stream_generate_answer`
 * (token check, retrieval over the tenant's documents, prompt, gateway call in process), and
 * "direct", the gateway's Azure OpenAI route with the very messages the chat proxy sent upstream
 * for that question (read back from the fake upstream), so the difference is the chat proxy's own.
 */
import { Client } from 'undici';
import { send } from '../shared/http-client';
import { chatBody, CHAT_MODEL, userToken, type ChatPlatform } from './setup';
import { streamOnce, type Streamed } from './stream';

export type Way = 'direct' | 'chat';
export const WAYS: Way[] = ['direct', 'chat'];
export const CHAT_PATH = '/api/stream_generate_answer';
export const DIRECT_PATH = `/proxy/api/v1/azure/openai/deployments/${CHAT_MODEL}/chat/completions?api-version=2024-10-21`;
/** Both ways' streams end with a stop (an error midway would end a chat stream with `"finish_reason":"error"`). */
const END = '"finish_reason":"stop"';

export interface Question {
  query: string;
  /** The gateway request body the chat proxy's prompt makes for `query`. */
  direct: string;
}

export interface Asker {
  ask(client: Client, way: Way, q: Question): Promise<Streamed>;
}

export function asker(p: ChatPlatform, pieces: number): Asker {
  const json = { 'content-type': 'application/json' };
  const direct = { ...json, 'api-key': p.apiKey };
  return {
    async ask(client, way, q) {
      if (way === 'direct') return streamOnce(client, DIRECT_PATH, q.direct, direct, pieces, END);
      return streamOnce(client, CHAT_PATH, chatBody(p, await userToken(p.tok), q.query), json, pieces, END);
    },
  };
}

interface UpstreamBody {
  messages: unknown[];
  max_tokens?: number;
  temperature?: number;
}

const lastUpstreamBody = async (upstream: string) => JSON.parse((await send('GET', `${upstream}/last`)).text) as UpstreamBody;

/**
 * Asks each query through the chat proxy once, keeps the messages the upstream got, and checks that
 * the direct request makes the upstream get the same ones. Runs on one connection, one call at a time.
 */
export async function capture(
  p: ChatPlatform,
  upstream: string,
  queries: readonly string[],
  pieces: number,
  tick: (n: number) => void,
): Promise<Question[]> {
  const client = new Client(p.url, { pipelining: 1, keepAliveTimeout: 30_000 });
  const a = asker(p, pieces);
  const out: Question[] = [];
  try {
    for (const query of queries) {
      await a.ask(client, 'chat', { query, direct: '' });
      const sent = await lastUpstreamBody(upstream);
      const q = {
        query,
        direct: JSON.stringify({ messages: sent.messages, max_tokens: sent.max_tokens, temperature: sent.temperature, stream: true }),
      };
      await a.ask(client, 'direct', q);
      const again = await lastUpstreamBody(upstream);
      if (JSON.stringify(again.messages) !== JSON.stringify(sent.messages) || again.max_tokens !== sent.max_tokens) {
        throw new Error(`the direct request did not reach the upstream as the chat proxy's did, for '${query.slice(0, 80)}'`);
      }
      out.push(q);
      tick(out.length);
    }
  } finally {
    await client.close();
  }
  return out;
}
