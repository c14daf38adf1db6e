import request from 'supertest';
import type { ModelsInstance } from '../../../services/models';
import { inProcess, type InProcess } from '../../shared/in-process';
import { askBody, DOCS, SECRET_OF_B, type AskBody } from './asking';

/**
 * The chat proxy's REST face in process (test/shared/in-process.ts: chat, search, models and token
 * opened as the platform opens them), with the e2e chat fixture's callers and documents: tokens of
 * tenant-a and tenant-b, an LM key of tenant-a, the documents of asking.ts ingested.
 */
export interface ChatInProcess {
  p: InProcess;
  /** LM key of tenant-a. */
  apiKey: string;
  /** Raw access tokens (`request.user_cred.token`) of tenant-a: a client with search:read and search:write, one with no role. */
  tokenA: string;
  noRoles: string;
  body: AskBody;
  ingest(doc: { title: string; content: string; file_name?: string }): Promise<string>;
  /** POSTs a JSON body (or raw text) to a path and reads what comes back as text, whatever its type (SSE, NDJSON, JSON). */
  post(path: string, body: unknown, headers?: Record<string, string>): Promise<{ status: number; type: string; text: string; body: any }>;
  close(): Promise<void>;
}

const RW = ['search:read', 'search:write'];
const raw = (bearer: string) => bearer.slice('Bearer '.length);

// superagent buffers and parses only the types it knows; a stream's text is read whole here.
const asText = (res: NodeJS.ReadableStream, done: (err: Error | null, text: string) => void) => {
  let text = '';
  res.setEncoding('utf8');
  res.on('data', (d: string) => (text += d));
  res.on('end', () => done(null, text));
};

export async function chatInProcess(env: Record<string, string> = {}): Promise<ChatInProcess> {
  const p = await inProcess(['chat'], env);
  try {
    const models = p.instances.models as unknown as ModelsInstance;
    const apiKey = (await models.keys.create({ name: 'chat-test', tenant: 'tenant-a' })).apiKey;
    const [a, b, noRoles] = await Promise.all([
      p.bearer('a-1', 'tenant-a', RW),
      p.bearer('b-1', 'tenant-b', RW),
      p.bearer('a-none', 'tenant-a', []),
    ]);
    const ingest = async (doc: { title: string; content: string; file_name?: string }, auth = a) => {
      const r = await request(p.app).post('/cl/search/api/v2/objects').set('authorization', auth).send(doc);
      if (r.status !== 201) throw new Error(`ingest failed: ${r.status} ${JSON.stringify(r.body)}`);
      return r.body.object_id as string;
    };
    for (const d of DOCS) await ingest(d);
    await ingest(SECRET_OF_B, b);
    const post: ChatInProcess['post'] = async (path, body, headers = {}) => {
      const req = request(p.app).post(path).set(headers);
      const res = await (typeof body === 'string' ? req.set('content-type', 'application/json').send(body) : req.send(body as object))
        .buffer(true)
        .parse(asText as never);
      const text = res.body as string;
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        /* a stream, or not JSON */
      }
      return { status: res.status, type: res.headers['content-type'] ?? '', text, body: parsed };
    };
    return {
      p,
      apiKey,
      tokenA: raw(a),
      noRoles: raw(noRoles),
      body: askBody(raw(a), apiKey),
      ingest: (doc) => ingest(doc),
      post,
      close: () => p.close(),
    };
  } catch (err) {
    await p.close();
    throw err;
  }
}
