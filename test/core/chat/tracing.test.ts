import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-node';
import { openChatCore, type ChatCore } from '../../../core/chat';
import type { Question } from '../../../core/chat/conversation';
import type { ChatCaller } from '../../../core/chat/credentials';
import { inProcessModels } from '../../../services/chat/peers/models';
import { inProcessRetrieval } from '../../../services/chat/peers/search';
import { openModelsCore, type ModelsCore } from '../../../core/models';
import { sqliteModelsStores } from '../../../core/models/sqlite';
import { openSearchCore, type SearchCore } from '../../../core/search';
import { sqliteSearchStores } from '../../../core/search/sqlite';
import type { Caller } from '../../../core/shared/auth/caller';
import type { Ctx } from '../../../core/shared/context';
import { extractTrace } from '../../../core/shared/telemetry/tracing';
import { callStatus } from '../../../edge/http/call-status';
import { recordSpans } from '../../shared/telemetry';
import { eventually } from '../../shared/wait';

/**
 * The spans of a chat answer in process (chat, search and the model gateway in one process, as
 * `platform start` runs them): `chat answer` is the ancestor of the search's and the model call's.
 */
const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

const user: Caller = {
  realm: 'r',
  subject: 'ann',
  tenantId: 'tenant-a',
  roles: ['search:read', 'search:write'],
  scopes: [],
  clientId: 'c',
  username: 'ann',
  sessionId: 's',
  tokenId: 't',
  expiresAt: 0,
  audience: ['search', 'chat'],
  bearer: 'x',
};
const question = (q: Partial<Question> = {}): Question => ({
  query: 'Why does ice melt?',
  history: [],
  files: [],
  examples: [],
  model: {},
  tenantId: 'tenant-a',
  ...q,
});

const named = (name: string) => exporter.getFinishedSpans().filter((s) => s.name === name);
const one = (name: string) => {
  const found = named(name);
  expect(found.map((s) => s.name)).toEqual([name]);
  return found[0];
};
/** Whether `ancestor` is `span`'s parent, or its parent's, and so on. */
function descends(span: ReadableSpan, ancestor: ReadableSpan): boolean {
  const byId = new Map(exporter.getFinishedSpans().map((s) => [s.spanContext().spanId, s]));
  for (let parent = span.parentSpanContext?.spanId; parent; parent = byId.get(parent)?.parentSpanContext?.spanId) {
    if (parent === ancestor.spanContext().spanId) return true;
  }
  return false;
}

describe("a chat answer's spans, in process", () => {
  let search: SearchCore;
  let models: ModelsCore;
  let chat: ChatCore;
  let ctx: Ctx<ChatCaller>;
  let unrecord: () => void;

  beforeAll(async () => {
    unrecord = recordSpans(provider);
    search = openSearchCore({ stores: sqliteSearchStores(':memory:') });
    models = openModelsCore({ stores: sqliteModelsStores(':memory:'), statusOf: callStatus });
    chat = openChatCore({
      retrieval: inProcessRetrieval(search.service),
      models: inProcessModels(models.service, models.keyCaller),
      limits: { searchMs: 5000, extractMs: 5000, rewriteMs: 5000, sources: 3, filePassages: 3 },
    });
    await search.service.createObject(
      { title: 'Ice', content: 'Ice melts when the air around it is warmer than its melting point.' },
      { caller: user },
    );
    const { apiKey } = await models.keys.create({ name: 'chat', tenant: 'tenant-a' });
    ctx = { caller: { user, modelKey: apiKey } };
  });
  afterAll(async () => {
    await Promise.all([search.close(), models.close()]);
    await provider.shutdown();
    unrecord();
  });
  beforeEach(() => exporter.reset());

  it('a whole answer: the search and the model call are its children', async () => {
    const answer = await chat.service.generateAnswer(question(), ctx);
    expect(answer.response).toContain('melt');
    const root = one('chat answer');
    expect(root.parentSpanContext).toBeUndefined();
    expect(root.attributes['chat.stream']).toBe(false);
    const searched = one('search passages_hybrid');
    const called = one('model chat.generate_answer local-chat');
    expect(descends(searched, root)).toBe(true);
    expect(descends(called, root)).toBe(true);
    expect(called.attributes).toMatchObject({ 'gen_ai.request.model': 'local-chat', 'http.response.status_code': 200 });
    // Nothing of the question or the documents travels in the spans.
    expect(JSON.stringify(exporter.getFinishedSpans().map((s) => s.attributes))).not.toMatch(/melt/i);
  });

  it("a streamed answer: its span and the model call's last until the stream ends", async () => {
    const s = await chat.service.streamAnswer(
      question({ history: [{ user_query: 'Tell me about ice', response: 'Ice is cold.' }], query: 'And why does it melt?' }),
      ctx,
    );
    expect(named('chat answer')).toEqual([]);
    expect(named('model chat.stream_generate_answer local-chat')).toEqual([]);
    // Rewriting the question and the search are over before the answer streams.
    const rewrite = one('model chat.rewrite local-chat');
    const searched = one('search passages_hybrid');
    for await (const _c of s.chunks) {
      /* read to the end */
    }
    // The model call's usage row (which ends its span) may be written a moment after the stream's end.
    await eventually(() => named('model chat.stream_generate_answer local-chat').length > 0);
    const root = one('chat answer');
    expect(root.attributes['chat.stream']).toBe(true);
    for (const child of [rewrite, searched, one('model chat.stream_generate_answer local-chat')]) expect(descends(child, root)).toBe(true);
  });

  it("twenty answers at once under their callers' traces: each trace holds its own answer, search and model call", async () => {
    const traces = Array.from({ length: 20 }, (_, i) => i.toString(16).padStart(32, 'c'));
    await Promise.all(
      traces.map((t) =>
        chat.service.generateAnswer(question(), { ...ctx, trace: extractTrace({ traceparent: `00-${t}-${'d'.repeat(16)}-01` }) }),
      ),
    );
    for (const t of traces) {
      const spans = exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === t);
      expect(spans.map((s) => s.name).sort()).toEqual(['chat answer', 'model chat.generate_answer local-chat', 'search passages_hybrid']);
      const root = spans.find((s) => s.name === 'chat answer')!;
      expect(root.parentSpanContext?.spanId).toBe('d'.repeat(16));
      for (const child of spans.filter((s) => s !== root)) expect(descends(child, root)).toBe(true);
    }
  });
});
