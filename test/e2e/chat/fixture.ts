import { chatCredentials, type ChatCaller } from '../../../core/chat/credentials';
import { GenerateAnswerBody, GetSourcesBody } from '../../../core/chat/inputs';
import type { ChatService } from '../../../core/chat/service';
import { remoteJwksKeySource } from '../../../core/shared/auth/key-sources';
import { createTokenVerifier, issuerBaseFor } from '../../../core/shared/auth/verifier';
import type { Ctx } from '../../../core/shared/context';
import { parseInput } from '../../../core/shared/validation';
import { questionOf, sourcesQuestionOf } from '../../../rest/chat/wire';
import type { ModelsInstance } from '../../../services/models';
import { askBody, DOCS, SECRET_OF_B, type AskBody } from '../../rest/chat/asking';
import { searchFixture, type SearchFixture } from '../search/fixture';

/** The chat service called with the spec's bodies, as its REST face calls it (validation, then the caller, then the question). */
export interface BodyChat {
  generateAnswer(body: unknown, meta?: Omit<Ctx, 'caller'>): ReturnType<ChatService['generateAnswer']>;
  streamAnswer(body: unknown, meta?: Omit<Ctx, 'caller'>): ReturnType<ChatService['streamAnswer']>;
  getSources(body: unknown, meta?: Omit<Ctx, 'caller'>): ReturnType<ChatService['getSources']>;
}

/** The platform with tokens of two tenants (search-fixture), an LM key of tenant-a, and documents of both tenants. */
export interface ChatFixture extends SearchFixture {
  /** LM key of tenant-a. */
  apiKey: string;
  /** The raw access token of tenant-a's reader (`request.user_cred.token`). */
  tokenA: string;
  tokenB: string;
  /** A generate_answer body asking `query` as tenant-a, with `extra` merged in. */
  body: AskBody;
  ingest(doc: { title: string; content: string; file_name?: string }, auth?: string): Promise<string>;
  /** `chat` (in process, or a client of a proxy elsewhere) behind what the REST edge does with a body. */
  byBody(chat: ChatService): BodyChat;
}

export async function chatFixture(env: Record<string, string> = {}): Promise<ChatFixture> {
  const f = await searchFixture(env);
  try {
    const models = f.platform.instances.models as unknown as ModelsInstance;
    const { apiKey } = await models.keys.create({ name: 'chat-test', tenant: 'tenant-a' });
    const ingest = async (doc: { title: string; content: string; file_name?: string }, auth?: string) => {
      const r = await f.call('POST', '/cl/search/api/v2/objects', { body: doc, auth });
      if (r.status !== 201) throw new Error(`ingest failed: ${r.status} ${JSON.stringify(r.body)}`);
      return r.body.object_id as string;
    };
    for (const d of DOCS) await ingest(d);
    await ingest(SECRET_OF_B, f.b);
    const raw = (bearer: string) => bearer.slice('Bearer '.length);
    const body = askBody(raw(f.a), apiKey);
    // As a proxy served apart from the token service verifies: with the realm's published keys.
    const keys = remoteJwksKeySource(f.url);
    const tools = { verifier: createTokenVerifier({ issuerBase: issuerBaseFor(f.platform.config.PUBLIC_URL), keys }), audience: 'chat' };
    const asked = async <B, Q>(schema: { parse(v: unknown): B }, body: unknown, map: (b: B) => Q, meta: Omit<Ctx, 'caller'> = {}) => {
      const parsed = parseInput(schema as never, body) as B;
      const caller: ChatCaller = await chatCredentials.resolve({ header: () => undefined, body: parsed }, tools);
      return { question: map(parsed), ctx: { ...meta, caller } };
    };
    const byBody = (chat: ChatService): BodyChat => ({
      generateAnswer: async (b, meta) => {
        const a = await asked(GenerateAnswerBody, b, questionOf, meta);
        return chat.generateAnswer(a.question, a.ctx);
      },
      streamAnswer: async (b, meta) => {
        const a = await asked(GenerateAnswerBody, b, questionOf, meta);
        return chat.streamAnswer(a.question, a.ctx);
      },
      getSources: async (b, meta) => {
        const a = await asked(GetSourcesBody, b, sourcesQuestionOf, meta);
        return chat.getSources(a.question, a.ctx);
      },
    });
    return { ...f, apiKey, tokenA: raw(f.a), tokenB: raw(f.b), body, ingest, byBody };
  } catch (err) {
    await f.stop();
    throw err;
  }
}
