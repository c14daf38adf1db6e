import { createChatService } from '../../../core/chat/chat-service';
import type { Question } from '../../../core/chat/conversation';
import type { ChatCaller } from '../../../core/chat/credentials';
import type { AnswerModels, Retrieval } from '../../../core/chat/ports';
import type { ChatStream } from '../../../core/models/neutral';
import type { Caller } from '../../../core/shared/auth/caller';
import type { Ctx } from '../../../core/shared/context';
import { UpstreamFailed, Unauthenticated } from '../../../core/shared/errors';
import { prometheusMetrics, type PrometheusMetrics } from '../../../core/shared/telemetry/prometheus';
import { seriesValue } from '../../shared/telemetry';

const user = { tenantId: 'acme', subject: 'ann', roles: ['search:read'], audience: ['chat'], bearer: 'tok' } as Caller;
const as = (modelKey = 'lmk'): Ctx<ChatCaller> => ({ caller: { user, modelKey } });
const limits = { searchMs: 1000, extractMs: 1000, rewriteMs: 1000, sources: 5, filePassages: 8 };
const question = (q: Partial<Question> = {}): Question => ({
  query: 'Why does ice melt?',
  history: [],
  files: [],
  examples: [],
  model: {},
  tenantId: 'acme',
  ...q,
});

/** A model that answers `Warm [1].`, or fails midway through its answer when the question says `fail`. */
const models: AnswerModels = {
  open: async (key, id) => {
    if (key !== 'lmk') throw new Unauthenticated('key');
    return { id, contextLength: 4096 };
  },
  chat: async (_m, req): Promise<ChatStream> => {
    const failing = req.messages.at(-1)!.text.includes('fail');
    let settle!: (d: Awaited<ChatStream['done']>) => void;
    const done = new Promise<Awaited<ChatStream['done']>>((r) => (settle = r));
    return {
      pieces: (async function* () {
        yield 'Warm ';
        if (failing) {
          settle({ finishReason: 'error', usage: { promptTokens: 1, completionTokens: 1 } });
          throw new UpstreamFailed('the upstream went away');
        }
        yield '[1].';
        settle({ finishReason: 'stop', usage: { promptTokens: 1, completionTokens: 2 } });
      })(),
      done,
    };
  },
};
const retrieval: Retrieval = {
  passages: async () => [{ objectId: 'o1', chunkId: 1, chunkIndex: 0, text: 'Ice melts.', score: 1, title: 'Ice', fileName: null }],
};

describe("the chat service's metrics", () => {
  let metrics: PrometheusMetrics;
  let service: ReturnType<typeof createChatService>;
  beforeEach(() => {
    metrics = prometheusMetrics({ maxTenants: 2 });
    service = createChatService({ retrieval, models, limits, defaultModel: 'm', metrics });
  });

  it('counts and times a whole answer, and a refused one as an error', async () => {
    await service.generateAnswer(question(), as());
    await expect(service.generateAnswer(question(), as('bad'))).rejects.toBeInstanceOf(Unauthenticated);
    await expect(service.generateAnswer(question({ query: 'fail now' }), as())).rejects.toBeInstanceOf(UpstreamFailed);
    expect(await seriesValue(metrics, 'platform_chat_answers_total', { stream: 'false', outcome: 'ok' })).toBe(1);
    expect(await seriesValue(metrics, 'platform_chat_answers_total', { stream: 'false', outcome: 'error' })).toBe(2);
    expect(await metrics.registry.getSingleMetricAsString('platform_chat_answer_duration_seconds')).toContain(
      'platform_chat_answer_duration_seconds_count{stream="false"} 3',
    );
  });

  it('counts a streamed answer when its stream ends: ok, or error when the model failed midway', async () => {
    const s = await service.streamAnswer(question(), as());
    expect(await seriesValue(metrics, 'platform_chat_answers_total', { stream: 'true', outcome: 'ok' })).toBe(0);
    const chunks = [];
    for await (const c of s.chunks) chunks.push(c);
    expect(chunks.at(-1)).toMatchObject({ finish_reason: 'stop' });
    expect(await seriesValue(metrics, 'platform_chat_answers_total', { stream: 'true', outcome: 'ok' })).toBe(1);

    const failing = await service.streamAnswer(question({ query: 'fail now' }), as());
    const last = [];
    for await (const c of failing.chunks) last.push(c);
    expect(last.at(-1)).toMatchObject({ finish_reason: 'error' });
    expect(await seriesValue(metrics, 'platform_chat_answers_total', { stream: 'true', outcome: 'error' })).toBe(1);
    expect(await metrics.registry.getSingleMetricAsString('platform_chat_answer_duration_seconds')).toContain(
      'platform_chat_answer_duration_seconds_count{stream="true"} 2',
    );
  });

  it('counts a reader who leaves midway as no error of ours', async () => {
    const s = await service.streamAnswer(question(), as());
    for await (const c of s.chunks) if (c.response) break;
    expect(await seriesValue(metrics, 'platform_chat_answers_total', { stream: 'true', outcome: 'ok' })).toBe(1);
    expect(await seriesValue(metrics, 'platform_chat_answers_total', { stream: 'true', outcome: 'error' })).toBe(0);
  });
});
