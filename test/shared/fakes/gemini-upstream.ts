import { piecesOf, startFake, vectorOf, type FakeToolCall, type FakeUpstream, type Midway, type Reply } from './fake-http';

/**
 * A fake Gemini API (`/v1beta/models/{model}:generateContent`, `:streamGenerateContent` with
 * `alt=sse` (or a JSON array without), `:embedContent`, `:batchEmbedContents`), answering
 * GenerateContentResponse objects as the real one does, errors as `{"error":{code,message,status}}`.
 */
export interface GeminiAnswer extends Midway {
  answer?: string | string[];
  /** STOP, MAX_TOKENS, SAFETY, ... */
  finishReason?: string;
  /** The prompt was blocked: no candidate, only promptFeedback. */
  blockReason?: string;
  usage?: { promptTokenCount: number; candidatesTokenCount: number };
  /** Answer with these function calls (whole `functionCall` parts, in the last chunk when streamed; `id` only when given, as Gemini sends one or not); the text is `answer` or none. */
  toolCalls?: FakeToolCall[];
}

export type FakeGemini = FakeUpstream<GeminiAnswer>;

export const FAKE_GEMINI_ANSWER = 'Ice melts and the oceans expand as they warm.';

const STATUS_NAMES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
};

function generate(step: GeminiAnswer, reply: Reply, fallback: string, stream: boolean, sse: boolean) {
  const usage = step.usage ?? { promptTokenCount: 9, candidatesTokenCount: 6 };
  const usageMetadata = { ...usage, totalTokenCount: usage.promptTokenCount + usage.candidatesTokenCount };
  if (step.blockReason) {
    const blocked = { promptFeedback: { blockReason: step.blockReason, safetyRatings: [] }, usageMetadata, modelVersion: 'gemini-fake' };
    return stream && sse
      ? reply.stream('text/event-stream', [`data: ${JSON.stringify(blocked)}\r\n\r\n`], step)
      : reply.json(200, stream ? [blocked] : blocked);
  }
  const calls = step.toolCalls?.map((c, i) => ({
    functionCall: { ...(c.id && { id: c.id }), name: c.name, args: c.args },
    ...(i === 0 && { thoughtSignature: 'c2lnbmF0dXJl' }),
  }));
  const pieces = piecesOf(step.answer ?? (calls ? [''] : fallback));
  const candidate = (text: string, last: boolean) => ({
    content: { parts: [...(text || !calls ? [{ text }] : []), ...(last && calls ? calls : [])], role: 'model' },
    index: 0,
    ...(last ? { finishReason: step.finishReason ?? 'STOP' } : {}),
  });
  const chunks = pieces.map((p, i) => ({
    candidates: [candidate(p, i === pieces.length - 1)],
    usageMetadata:
      i === pieces.length - 1 ? usageMetadata : { promptTokenCount: usage.promptTokenCount, totalTokenCount: usage.promptTokenCount },
    modelVersion: 'gemini-fake',
    responseId: 'fake-response',
  }));
  if (!stream)
    return reply.json(200, {
      candidates: [candidate(pieces.join(''), true)],
      usageMetadata,
      modelVersion: 'gemini-fake',
      responseId: 'fake-response',
    });
  if (!sse) return reply.json(200, chunks);
  return reply.stream(
    'text/event-stream',
    chunks.map((c) => `data: ${JSON.stringify(c)}\r\n\r\n`),
    step,
  );
}

export function startFakeGemini(opts: { answer?: string } = {}): Promise<FakeGemini> {
  const fallback = opts.answer ?? FAKE_GEMINI_ANSWER;
  return startFake<GeminiAnswer>({
    errorBody: (status, message, code) => ({
      body: {
        error: {
          code: status,
          message,
          status: STATUS_NAMES[status] ?? 'UNKNOWN',
          ...(code ? { details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: code, domain: 'googleapis.com' }] } : {}),
        },
      },
    }),
    answer(req, step = {}, reply) {
      const [path, query = ''] = req.path.split('?');
      const method = /^\/v1beta\/models\/[^/:]+:(\w+)$/.exec(path)?.[1];
      if (method === 'generateContent' || method === 'streamGenerateContent') {
        return generate(step, reply, fallback, method === 'streamGenerateContent', new URLSearchParams(query).get('alt') === 'sse');
      }
      if (method === 'embedContent')
        return reply.json(200, {
          embedding: { values: vectorOf(req.json?.content?.parts?.[0]?.text ?? '', req.json?.outputDimensionality ?? 8) },
        });
      if (method === 'batchEmbedContents') {
        const requests: any[] = req.json?.requests ?? [];
        return reply.json(200, {
          embeddings: requests.map((r) => ({ values: vectorOf(r.content?.parts?.[0]?.text ?? '', r.outputDimensionality ?? 8) })),
        });
      }
      return reply.json(404, { error: { code: 404, message: `Method not found: ${path}`, status: 'NOT_FOUND' } });
    },
  });
}
