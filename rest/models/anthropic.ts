import { opaqueId } from '../../core/shared/ids';
import type { Response } from 'express';
import { z } from 'zod';
import { randomUUID } from 'node:crypto';
import {
  AnthropicRequest,
  anthropicChat,
  type MessagesRequest,
  anthropicErrorType,
  anthropicMessage,
  anthropicStreamEvents,
  type AnthropicEvent,
} from '../../core/models/vendors/anthropic';
import type { KeyCaller, Metered, ModelsService } from '../../core/models/service';
import type { Ctx } from '../../core/shared/context';
import { STATUS, toPlatformError } from '../../edge/http/errors';
import { pipeStream } from '../../edge/http/event-stream';
import { VENDOR_SSE_HEAD, sseEvent } from '../../edge/http/stream-frames';
import { requestIdOf, type ErrorBody } from '../shared/http-errors';
import { groupC, wireBody } from './bedrock-common';
import { collect } from '../../core/models/collect';
import { define, gatewayHeaders, lmKey } from './common';
import { anthropicDocs } from './docs-bedrock';
import type { Route } from '../shared/routes';

/**
 * Group C family 1: Anthropic's Messages API (request, message object, server-sent events with
 * their `event:` names, errors) at `/bedrock/v1/messages/anthropic?modelId=`.
 */
export const anthropicErrorBody: ErrorBody = (err, status, res) => {
  // The SDKs read the id of a failed request from `request-id`.
  if (res && !res.headersSent) res.set('request-id', requestIdOf(res.req) ?? randomUUID());
  return { type: 'error', error: { type: anthropicErrorType(status), message: err.message, ...(err.code ? { code: err.code } : {}) } };
};

export const anthropicMessageId = () => `msg_${opaqueId()}`;

/**
 * Writes Anthropic's events as SSE (`event: <type>` then `data: <json>`) with the edge's writer, a
 * `ping` after the first block starts as Anthropic sends; a failure midway is its `event: error`.
 * Stops when the caller goes.
 */
export function anthropicSse(res: Response, events: AsyncIterable<AnthropicEvent>): Promise<void> {
  const event = (e: AnthropicEvent) => sseEvent(JSON.stringify(e), e.type);
  let pinged = false;
  return pipeStream(res, events, {
    headers: VENDOR_SSE_HEAD,
    head: 'once',
    frame(e) {
      const ping = e.type === 'content_block_start' && !pinged;
      pinged ||= ping;
      return ping ? event(e) + event({ type: 'ping' }) : event(e);
    },
    failure(err) {
      const p = toPlatformError(err);
      return event({
        type: 'error',
        error: { type: anthropicErrorType(STATUS[p.kind]), message: p.expose ? p.message : 'Internal server error' },
      });
    },
  });
}

/** A Messages call (the Bedrock route's or Anthropic's own API's; its body read in the call) and its answer: the message object, or its events streamed. */
export async function anthropicAnswer(
  models: ModelsService,
  m: Metered,
  read: () => AnthropicRequest | MessagesRequest,
  res: Response,
  ctx: Ctx<KeyCaller>,
) {
  let body!: AnthropicRequest | MessagesRequest;
  const stream = await models.chat(
    {
      ...m,
      read: () => {
        body = read();
        return { ...anthropicChat(body), stream: body.stream === true };
      },
    },
    ctx,
  );
  gatewayHeaders(res, stream);
  const meta = { id: anthropicMessageId(), model: m.model.id };
  if (!body.stream) return anthropicMessage(meta, await collect(stream));
  await anthropicSse(res, anthropicStreamEvents(meta, stream));
  return undefined;
}

export function anthropicRoutes(models: ModelsService): Route[] {
  return [
    define({
      method: 'post',
      path: '/bedrock/v1/messages/anthropic',
      tags: ['group C'],
      summary: 'Messages, family 1 (Anthropic Messages wire format; `stream: true` for server-sent events)',
      description:
        'Takes `?modelId=`; the body needs `anthropic_version` and `max_tokens`. The key comes in `api-key`, `x-api-key` or `Authorization: Bearer`.',
      input: { body: z.unknown() },
      credential: lmKey,
      errorBody: anthropicErrorBody,
      docs: anthropicDocs,
      responses: { 200: { description: 'A message object, or message_start ... message_stop events' } },
      handle: async (input, { req, res, ctx }) => {
        const m = await groupC(models, ctx, req.query.modelId, 'bedrock.messages.anthropic');
        return anthropicAnswer(models, m, () => wireBody(AnthropicRequest, input.body), res, ctx);
      },
    }),
  ];
}
