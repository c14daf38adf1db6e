import { EventStreamCodec } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
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
 * A fake Bedrock runtime over cleartext HTTP/2 (the AWS SDK's Bedrock client speaks HTTP/2):
 * `/model/{modelId}/converse` (JSON), `/model/{modelId}/converse-stream` (AWS event-stream
 * framing: messageStart, contentBlockDelta..., contentBlockStop, messageStop, metadata), and
 * `/model/{modelId}/invoke` with a Titan embedding body. Errors are restJson1 errors: the
 * exception's name in `x-amzn-errortype`, `{"message"}` in the body. Signatures are not checked
 * (the recorded `authorization` header shows what was signed with).
 */
export interface BedrockAnswer extends Midway {
  answer?: string | string[];
  /** end_turn, max_tokens, guardrail_intervened, ... */
  stopReason?: string;
  usage?: { inputTokens: number; outputTokens: number };
  /** An exception event sent after the answer's pieces (e.g. `modelStreamErrorException`). */
  exception?: string;
  /** Answer with these `toolUse` blocks after the text (streamed: contentBlockStart, input pieces, contentBlockStop; stopReason tool_use); the text is `answer` or none. */
  toolCalls?: FakeToolCall[];
}

export type FakeBedrock = FakeUpstream<BedrockAnswer>;

export const FAKE_BEDROCK_ANSWER = 'Warming water expands and land ice melts into the sea.';

const EXCEPTIONS: Record<number, string> = {
  400: 'ValidationException',
  403: 'AccessDeniedException',
  404: 'ResourceNotFoundException',
  408: 'ModelTimeoutException',
  424: 'ModelErrorException',
  429: 'ThrottlingException',
  500: 'InternalServerException',
  503: 'ServiceUnavailableException',
};

const codec = new EventStreamCodec(toUtf8, fromUtf8);
const str = (value: string) => ({ type: 'string' as const, value });
const event = (type: string, payload: object) =>
  codec.encode({
    headers: { ':event-type': str(type), ':content-type': str('application/json'), ':message-type': str('event') },
    body: fromUtf8(JSON.stringify(payload)),
  });
const exception = (type: string, message: string) =>
  codec.encode({
    headers: { ':exception-type': str(type), ':content-type': str('application/json'), ':message-type': str('exception') },
    body: fromUtf8(JSON.stringify({ message })),
  });

function converse(step: BedrockAnswer, reply: Reply, fallback: string, stream: boolean) {
  const calls = step.toolCalls?.map((c, i) => ({ toolUseId: c.id ?? `tooluse_fake${i}`, name: c.name, input: c.args }));
  const pieces = piecesOf(step.answer ?? (calls ? [] : fallback));
  const usage = step.usage ?? { inputTokens: 10, outputTokens: pieces.length };
  const stopReason = step.stopReason ?? (calls ? 'tool_use' : 'end_turn');
  const fullUsage = { ...usage, totalTokens: usage.inputTokens + usage.outputTokens };
  if (!stream) {
    const content = [...(pieces.length || !calls ? [{ text: pieces.join('') }] : []), ...(calls ?? []).map((toolUse) => ({ toolUse }))];
    return reply.json(200, {
      output: { message: { role: 'assistant', content } },
      stopReason,
      usage: fullUsage,
      metrics: { latencyMs: 5 },
    });
  }
  // The text is block 0 (when there is any), each call a block of its own after it.
  const first = pieces.length ? 1 : 0;
  const toolFrames = (calls ?? []).flatMap(({ toolUseId, name, input }, i) => [
    event('contentBlockStart', { contentBlockIndex: first + i, start: { toolUse: { toolUseId, name } } }),
    ...jsonPieces(input).map((piece) => event('contentBlockDelta', { contentBlockIndex: first + i, delta: { toolUse: { input: piece } } })),
    event('contentBlockStop', { contentBlockIndex: first + i }),
  ]);
  const frames = [
    event('messageStart', { role: 'assistant' }),
    ...pieces.map((text) => event('contentBlockDelta', { contentBlockIndex: 0, delta: { text } })),
    ...(step.exception
      ? [exception(step.exception, 'The model failed midway.')]
      : [
          ...(first || !calls ? [event('contentBlockStop', { contentBlockIndex: 0 })] : []),
          ...toolFrames,
          event('messageStop', { stopReason }),
          event('metadata', { usage: fullUsage, metrics: { latencyMs: 5 } }),
        ]),
  ];
  return reply.stream('application/vnd.amazon.eventstream', frames, step);
}

/** The model id of a Bedrock runtime path, decoded. */
export const modelIdOf = (req: RecordedRequest) => decodeURIComponent(/^\/model\/([^/]+)\//.exec(req.path)?.[1] ?? '');

export function startFakeBedrock(opts: { answer?: string } = {}): Promise<FakeBedrock> {
  const fallback = opts.answer ?? FAKE_BEDROCK_ANSWER;
  return startFake<BedrockAnswer>({
    http2: true,
    errorBody: (status, message, code) => ({
      body: { message },
      headers: {
        'x-amzn-errortype': `${code ?? EXCEPTIONS[status] ?? 'InternalServerException'}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
        'x-amzn-requestid': 'fake-request',
      },
    }),
    answer(req, step = {}, reply) {
      const op = /^\/model\/[^/]+\/([\w-]+)$/.exec(req.path.split('?')[0])?.[1];
      if (op === 'converse' || op === 'converse-stream') return converse(step, reply, fallback, op === 'converse-stream');
      if (op === 'invoke') {
        const text: string = req.json?.inputText ?? '';
        return reply.json(200, {
          embedding: vectorOf(text, req.json?.dimensions ?? 8),
          inputTextTokenCount: text.split(/\s+/).filter(Boolean).length,
        });
      }
      return reply.json(404, { message: `No route for ${req.path}` }, { 'x-amzn-errortype': 'UnknownOperationException' });
    },
  });
}
