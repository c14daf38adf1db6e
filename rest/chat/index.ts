import type { ChatService } from '../../core/chat/service';
import { InvalidToken } from '../../core/shared/auth/caller';
import { endWhenRevoked, sessionOfCaller } from '../../core/shared/auth/end-when-revoked';
import type { RevocationList } from '../../core/shared/auth/revocations';
import { GenerateAnswerBody, GetSourcesBody } from '../../core/chat/inputs';
import { chatDocs, chatSchemas, chatServiceDocs } from './docs';
import type { ChatCaller } from '../../core/chat/credentials';
import { defineFor, type RestService } from '../shared/routes';
import { questionOf, sourcesQuestionOf } from './wire';

/** A chat route: its caller is the user of the body's token, with the body's LM key. */
const define = defineFor<ChatCaller>();
import { streamObjects } from '../shared/stream';
import { CHAT_PREFIX } from './prefix';

export { CHAT_PREFIX };

const refusals = {
  401: { description: 'Missing or invalid `request.user_cred.token`, or a missing, unknown or revoked `api_key`' },
  403: {
    description: "The token's tenant is not `request.user_cred.client.tenant_id`, it lacks `search:read`, or the key may not use the model",
  },
  404: { description: 'Unknown or deactivated model' },
  422: { description: 'A body field of the wrong type, or no query' },
  429: { description: "The key's rate or token budget is spent" },
  502: { description: 'The search service or the model failed' },
  504: { description: 'The search service or the model did not answer in time' },
};

/**
 * The chat proxy's REST face (spec paths under `/api`, no version). Credentials are in the body
 * (DECISIONS); errors are `{"detail": ...}`. A stream is refused with a status until the model has
 * accepted the call; after that, failures end it with a chunk whose `finish_reason` is `error`.
 */
export function chatRest(chat: ChatService, revocations?: Pick<RevocationList, 'watch'>): RestService {
  return {
    title: 'Chat proxy',
    version: '1.0.0',
    prefix: CHAT_PREFIX,
    errorBody: (err) => ({ detail: 'issues' in err ? err.issues : err.message }),
    docs: chatServiceDocs,
    schemas: chatSchemas,
    routes: [
      define({
        method: 'post',
        path: '/generate_answer',
        summary: 'A grounded answer from a language model, whole',
        tags: ['chat'],
        input: { body: GenerateAnswerBody },
        docs: chatDocs.answer,
        responses: { 200: { description: '`response`, `generated_search_text`, `finish_reason`' }, ...refusals },
        handle: ({ body }, { ctx }) => chat.generateAnswer(questionOf(body), ctx),
      }),
      define({
        method: 'post',
        path: '/stream_generate_answer',
        summary: 'A grounded answer, streamed',
        tags: ['chat'],
        description:
          'Server-sent events: `data: {"generated_search_text","response","finish_reason":null}` per piece, the last with ' +
          '`finish_reason` set (`stop`, `length`, `content_filter`, `error`, or `tool_calls` with the `tool_calls` list), then `data: [DONE]`. ' +
          "`Accept: application/x-ndjson` gives one object per line instead. When the token's session is ended while the answer streams " +
          '(logout, revocation, a disabled user or client), the stream ends with `finish_reason` `error` and `detail` `Invalid token: revoked`.',
        input: { body: GenerateAnswerBody },
        docs: chatDocs.stream,
        responses: { 200: { description: 'The answer, chunk by chunk', contentType: 'text/event-stream' }, ...refusals },
        handle: async ({ body }, { ctx, req, res, heartbeatMs }) => {
          if (!revocations)
            return void (await streamObjects(req, res, (await chat.streamAnswer(questionOf(body), ctx)).chunks, { heartbeatMs }));
          // A stream whose user's session is ended while it runs ends as a failure midway does, saying
          // why, and its model call stops (as when the caller leaves).
          const stop = new AbortController();
          const answer = await chat.streamAnswer(questionOf(body), { ...ctx, signal: AbortSignal.any([ctx.signal!, stop.signal]) });
          const ended = () => {
            stop.abort(new InvalidToken('revoked'));
            return {
              generated_search_text: answer.generatedSearchText,
              response: '',
              finish_reason: 'error' as const,
              detail: 'Invalid token: revoked',
            };
          };
          const chunks = endWhenRevoked(answer.chunks[Symbol.asyncIterator](), [sessionOfCaller(ctx.caller.user)], revocations, ended);
          await streamObjects(req, res, chunks, { heartbeatMs });
          return undefined;
        },
      }),
      define({
        method: 'post',
        path: '/get_sources',
        summary: 'The sources an answer would be grounded in',
        tags: ['chat'],
        description:
          '`{"sources": {...}, "success": true}`. `api_key` and `model_info` (optional) let the model rewrite a follow-up from `chat_hist`.',
        input: { body: GetSourcesBody },
        docs: chatDocs.sources,
        responses: { 200: { description: 'The sources' }, ...refusals },
        handle: ({ body }, { ctx }) => chat.getSources(sourcesQuestionOf(body), ctx),
      }),
    ],
  };
}
