import { drained } from '../shared/stream';
import { opaqueId } from '../../core/shared/ids';
import type { Response } from 'express';
import { z } from 'zod';
import { randomUUID } from 'node:crypto';
import { AnthropicRequest, anthropicChat, type MessagesRequest, anthropicErrorType, anthropicMessage, anthropicStreamEvents, type AnthropicEvent } from '../../core/models/vendors/anthropic';
import type { KeyCaller, Metered, ModelsService } from '../../core/models/service';
import type { Ctx } from '../../core/shared/context';
import { STATUS, toPlatformError } from '../../edge/http/errors';
import { streamOpened } from '../../edge/http/telemetry';
import { requestIdOf, type ErrorBody } from '../shared/http-errors';
import { groupC, wireBody } from './bedrock-common';
import { collect, refusing } from '../../core/models/refusing';
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
 * Writes Anthropic's events as SSE (`event: <type>` then `data: <json>`), a `ping` after the first
 * block starts as Anthropic sends; a failure midway is its `event: error`. Stops when the caller goes.
 */
export async function anthropicSse(res: Response, events: AsyncIterable<AnthropicEvent>): Promise<void> {
  res.status(200).set({ 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache', 'X-Accel-Buffering': 'no' });
  res.flushHeaders();
  streamOpened(res.req, res);
  const gone = () => res.writableEnded || res.destroyed;
  const send = (e: AnthropicEvent) => (gone() || res.write(`event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`) ? Promise.resolve() : drained(res));
  let pinged = false;
  try {
    for await (const e of events) {
      await send(e);
      if (e.type === 'content_block_start' && !pinged) await send({ type: 'ping' });
      pinged ||= e.type === 'content_block_start';
      if (gone()) return;
    }
  } catch (err) {
    if (gone()) return;
    const p = toPlatformError(err);
    await send({ type: 'error', error: { type: anthropicErrorType(STATUS[p.kind]), message: p.expose ? p.message : 'Internal server error' } });
  } finally {
    if (!gone()) res.end();
  }
}

/** A Messages call (the Bedrock route's or Anthropic's own API's) and its answer: the message object, or its events streamed. */
export async function anthropicAnswer(models: ModelsService, m: Metered, body: AnthropicRequest | MessagesRequest, res: Response, ctx: Ctx<KeyCaller>) {
  const stream = await models.chat({ ...m, ...anthropicChat(body), stream: body.stream === true }, ctx);
  gatewayHeaders(res, stream);
  const meta = { id: anthropicMessageId(), model: m.model.id };
  if (!body.stream) return anthropicMessage(meta, await collect(stream));
  await anthropicSse(res, anthropicStreamEvents(meta, stream));
  return undefined;
}

export function anthropicRoutes(models: ModelsService): Route[] {
  return [define({
    method: 'post', path: '/bedrock/v1/messages/anthropic', tags: ['group C'],
    summary: 'Messages, family 1 (Anthropic Messages wire format; `stream: true` for server-sent events)',
    description: 'Takes `?modelId=`; the body needs `anthropic_version` and `max_tokens`. The key comes in `api-key`, `x-api-key` or `Authorization: Bearer`.',
    input: { body: z.unknown() }, credential: lmKey, errorBody: anthropicErrorBody, docs: anthropicDocs,
    responses: { 200: { description: 'A message object, or message_start ... message_stop events' } },
    handle: async (input, { req, res, ctx }) => {
      const m = await groupC(models, ctx, req.query.modelId, 'bedrock.messages.anthropic');
      return anthropicAnswer(models, m, await refusing(models, m, ctx, () => wireBody(AnthropicRequest, input.body)), res, ctx);
    },
  })];
}
