import {
  jsonPieces,
  piecesOf,
  startFake,
  vectorOf,
  type FakeToolCall,
  type FakeUpstream,
  type Midway,
  type RecordedRequest,
  type Reply,
} from './fake-http';

/**
 * A fake OpenAI-wire upstream (Azure OpenAI's `/openai/deployments/{d}/...` paths and the
 * OpenAI-compatible `/v1/...` ones alike: it answers by the path's ending): chat completions (JSON,
 * or SSE chunks with `[DONE]` when `stream: true`, usage when `stream_options.include_usage`),
 * embeddings, image generation (b64_json) and transcription (verbose_json). It answers at once,
 * so benchmarks can use it as an upstream with no latency of its own.
 */
export interface OpenAiAnswer extends Midway {
  /** The answer's text (streamed in pieces of three words), or its pieces. */
  answer?: string | string[];
  finishReason?: string;
  usage?: { prompt_tokens: number; completion_tokens: number };
  /** Answer with these calls (`tool_calls`, streamed as `delta.tool_calls` pieces; finish reason tool_calls); the text is `answer` or none. */
  toolCalls?: FakeToolCall[];
}

export type FakeOpenAi = FakeUpstream<OpenAiAnswer>;

export const FAKE_OPENAI_ANSWER = 'Sea levels rise because glaciers and ice sheets melt as the climate warms.';
/** A 1x1 transparent PNG. */
export const FAKE_PNG_B64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

function chat(req: RecordedRequest, step: OpenAiAnswer, reply: Reply, fallback: string) {
  const calls = step.toolCalls?.map((c, i) => ({ id: c.id ?? `call_fake${i}`, name: c.name, args: c.args }));
  const pieces = piecesOf(step.answer ?? (calls ? [] : fallback));
  const text = pieces.join('');
  const usage = step.usage ?? { prompt_tokens: 12, completion_tokens: pieces.length };
  const finish = step.finishReason ?? (calls ? 'tool_calls' : 'stop');
  const base = { id: 'chatcmpl-fake', created: 1_700_000_000, model: req.json?.model ?? 'fake-model', system_fingerprint: 'fp_fake' };
  const usageOf = (u: typeof usage) => ({ ...u, total_tokens: u.prompt_tokens + u.completion_tokens });
  if (!req.json?.stream) {
    return reply.json(200, {
      ...base,
      object: 'chat.completion',
      choices: [
        {
          index: 0,
          finish_reason: finish,
          logprobs: null,
          message: {
            role: 'assistant',
            content: calls && !text ? null : text,
            refusal: null,
            ...(calls && {
              tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.args) } })),
            }),
          },
        },
      ],
      usage: usageOf(usage),
    });
  }
  const chunk = (delta: object, finishReason: string | null) => ({
    ...base,
    object: 'chat.completion.chunk',
    choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }],
  });
  const events: object[] = [
    chunk({ role: 'assistant', content: '' }, null),
    ...pieces.map((p) => chunk({ content: p }, null)),
    // Each call: its id and name with empty arguments, then the arguments in pieces.
    ...(calls ?? []).flatMap((c, index) => [
      chunk({ tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.name, arguments: '' } }] }, null),
      ...jsonPieces(c.args).map((a) => chunk({ tool_calls: [{ index, function: { arguments: a } }] }, null)),
    ]),
    chunk({}, finish),
    ...(req.json?.stream_options?.include_usage ? [{ ...base, object: 'chat.completion.chunk', choices: [], usage: usageOf(usage) }] : []),
  ];
  return reply.stream('text/event-stream', [...events.map((e) => `data: ${JSON.stringify(e)}\n\n`), 'data: [DONE]\n\n'], step);
}

/** Starts the fake; `answer` is its default reply to chat; `record: false` keeps no requests (benchmarks). */
export function startFakeOpenAi(opts: { answer?: string; record?: boolean } = {}): Promise<FakeOpenAi> {
  const fallback = opts.answer ?? FAKE_OPENAI_ANSWER;
  return startFake<OpenAiAnswer>({
    record: opts.record,
    errorBody: (status, message, code) => ({
      body: {
        error: {
          message,
          type: status === 429 ? 'rate_limit_error' : status >= 500 ? 'server_error' : 'invalid_request_error',
          param: null,
          code: code ?? null,
        },
      },
      headers: status === 429 ? { 'retry-after': '0' } : undefined,
    }),
    answer(req, step = {}, reply) {
      const path = req.path.split('?')[0];
      if (path.endsWith('/chat/completions')) return chat(req, step, reply, fallback);
      if (path.endsWith('/embeddings')) {
        // Texts, or token ids (OpenAI takes arrays of integers too): each input's vector from its text or its ids.
        const given: unknown = req.json?.input;
        const inputs: string[] = (
          typeof given === 'string' || typeof (given as unknown[] | undefined)?.[0] === 'number'
            ? [given]
            : ((given as unknown[] | undefined) ?? [])
        ).map((t) => (typeof t === 'string' ? t : (t as number[]).join(' ')));
        return reply.json(200, {
          object: 'list',
          model: req.json?.model ?? 'fake-embed',
          data: inputs.map((t, index) => ({ object: 'embedding', index, embedding: vectorOf(t, req.json?.dimensions ?? 8) })),
          usage: { prompt_tokens: inputs.length * 3, total_tokens: inputs.length * 3 },
        });
      }
      if (path.endsWith('/images/generations')) {
        return reply.json(200, {
          created: 1_700_000_000,
          data: [{ b64_json: FAKE_PNG_B64, revised_prompt: `A picture of ${req.json?.prompt ?? ''}` }],
        });
      }
      if (path.endsWith('/audio/transcriptions')) {
        const text = typeof step.answer === 'string' ? step.answer : 'Hello there. General Kenobi.';
        return reply.json(200, {
          task: 'transcribe',
          language: 'english',
          duration: 2.5,
          text,
          segments: [
            {
              id: 0,
              seek: 0,
              start: 0,
              end: 1.2,
              text: ' Hello there.',
              tokens: [1, 2],
              temperature: 0,
              avg_logprob: -0.2,
              compression_ratio: 1,
              no_speech_prob: 0.01,
            },
            {
              id: 1,
              seek: 0,
              start: 1.2,
              end: 2.5,
              text: ' General Kenobi.',
              tokens: [3, 4],
              temperature: 0,
              avg_logprob: -0.2,
              compression_ratio: 1,
              no_speech_prob: 0.01,
            },
          ],
        });
      }
      return reply.json(404, { error: { message: 'Resource not found', type: 'invalid_request_error', param: null, code: '404' } });
    },
  });
}
