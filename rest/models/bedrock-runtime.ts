import type { Request } from 'express';
import { z } from 'zod';
import type { ChatUsage } from '../../core/models/neutral';
import { ConverseRequest, converseResponse, converseStreamEvents, converseToChat, converseTools } from '../../core/models/vendors/bedrock';
import type { Ctx } from '../../core/shared/context';
import type { KeyCaller, Metered, ModelsService } from '../../core/models/service';
import { pipeEventStream } from './eventstream';
import { amzn, bedrockErrorBody, groupC, streamException, wireBody } from './bedrock-common';
import { LlamaRequest, nativeCall } from './bedrock-invoke';
import { invokeAnswer, invokeEmbedding } from './bedrock-embed';
import { collect } from '../../core/models/collect';
import { define, gatewayHeaders, lmKey } from './common';
import { converseDocs, converseStreamDocs, invokeDocs } from './docs-bedrock';
import type { Route } from '../shared/routes';

/**
 * The Bedrock runtime's own paths (`/bedrock/model/{modelId}/converse|converse-stream|invoke|
 * invoke-with-response-stream`), so `@aws-sdk/client-bedrock-runtime` works with only its endpoint
 * changed: restJson1 bodies, event-stream answers, `x-amzn-ErrorType` errors. Express decodes the
 * %-escaped modelId (`:` and `/` of profile ids and ARNs).
 */
const inference = (c: ConverseRequest['inferenceConfig']) => ({
  maxTokens: c?.maxTokens,
  temperature: c?.temperature,
  topP: c?.topP,
  stop: c?.stopSequences,
});

/** A Converse body as the chat call's input: its messages, inference settings, tools and response format. */
const converseCall = (body: ConverseRequest) => ({
  messages: converseToChat(body),
  ...inference(body.inferenceConfig),
  ...converseTools(body),
});

const invocationMetrics = (started: number, firstByte: () => number) => (u: ChatUsage) => ({
  inputTokenCount: u.promptTokens,
  outputTokenCount: u.completionTokens,
  invocationLatency: Date.now() - started,
  firstByteLatency: firstByte(),
});

/** An InvokeModel chat: its native body read in the call, and kept for the answer's native shape. */
async function invoke(models: ModelsService, m: Metered, body: unknown, started: number, stream: boolean, ctx: Ctx<KeyCaller>) {
  let native!: ReturnType<typeof nativeCall>;
  const answer = await models.chat(
    {
      ...m,
      read: () => {
        native = nativeCall(body, m.model.id, started);
        return { ...native.chat, stream };
      },
    },
    ctx,
  );
  return { native, stream: answer };
}

/** Converse (`/converse` and the group C messages routes of families 2 and 3). */
export function converseRoute(
  models: ModelsService,
  path: string,
  route: string,
  modelIdOf: (req: Request) => unknown,
  summary: string,
): Route {
  return define({
    method: 'post',
    path,
    tags: ['group C'],
    summary,
    input: { body: z.unknown() },
    credential: lmKey,
    errorBody: bedrockErrorBody,
    docs: converseDocs(path),
    responses: { 200: { description: 'The Converse answer: output.message, stopReason, usage, metrics' } },
    handle: (input, { req, res, ctx }) =>
      amzn(req, res, async () => {
        const m = await groupC(models, ctx, modelIdOf(req), route);
        const started = Date.now();
        const stream = await models.chat(
          { ...m, read: () => ({ ...converseCall(wireBody(ConverseRequest, input.body)), stream: false }) },
          ctx,
        );
        gatewayHeaders(res, stream);
        return converseResponse(await collect(stream), Date.now() - started);
      }),
  });
}

export function runtimeRoutes(models: ModelsService): Route[] {
  const modelId = (req: Request) => req.params.modelId;
  const path = (op: string) => `/bedrock/model/:modelId/${op}`;
  return [
    converseRoute(models, path('converse'), 'bedrock.converse', modelId, 'Bedrock runtime Converse'),
    define({
      method: 'post',
      path: path('converse-stream'),
      tags: ['group C'],
      summary: 'Bedrock runtime ConverseStream (AWS event stream)',
      input: { body: z.unknown() },
      credential: lmKey,
      errorBody: bedrockErrorBody,
      docs: converseStreamDocs,
      responses: {
        200: {
          description: 'messageStart, contentBlockDelta..., contentBlockStop, messageStop, metadata',
          contentType: 'application/vnd.amazon.eventstream',
        },
      },
      handle: (input, { req, res, ctx }) =>
        amzn(req, res, async () => {
          const m = await groupC(models, ctx, modelId(req), 'bedrock.converse-stream');
          const started = Date.now();
          const stream = await models.chat(
            { ...m, read: () => ({ ...converseCall(wireBody(ConverseRequest, input.body)), stream: true }) },
            ctx,
          );
          gatewayHeaders(res, stream);
          await pipeEventStream(
            res,
            converseStreamEvents(stream, () => Date.now() - started),
            streamException,
          );
          return undefined;
        }),
    }),
    define({
      method: 'post',
      path: path('invoke'),
      tags: ['group C'],
      summary: 'Bedrock runtime InvokeModel (Anthropic, Nova or Llama native bodies; Titan or Cohere bodies for an embedding model)',
      input: { body: z.unknown() },
      untypedJson: true,
      credential: lmKey,
      errorBody: bedrockErrorBody,
      docs: invokeDocs(LlamaRequest).invoke,
      responses: { 200: { description: "The model family's native answer" } },
      handle: (input, { req, res, ctx }) =>
        amzn(req, res, async () => {
          const m = await groupC(models, ctx, modelId(req), 'bedrock.invoke');
          if (m.model.kind === 'embedding') return invokeEmbedding(models, m, input.body, res, ctx);
          const started = Date.now();
          const { native, stream } = await invoke(models, m, input.body, started, false, ctx);
          gatewayHeaders(res, stream);
          const answer = await collect(stream);
          invokeAnswer(res, native.answer(answer), {
            inputTokens: answer.usage.promptTokens,
            outputTokens: answer.usage.completionTokens,
            started,
          });
          return undefined;
        }),
    }),
    define({
      method: 'post',
      path: path('invoke-with-response-stream'),
      tags: ['group C'],
      summary: 'Bedrock runtime InvokeModelWithResponseStream (AWS event stream of chunks)',
      input: { body: z.unknown() },
      untypedJson: true,
      credential: lmKey,
      errorBody: bedrockErrorBody,
      docs: invokeDocs(LlamaRequest).stream,
      responses: {
        200: { description: '`chunk` events whose bytes are the native stream events', contentType: 'application/vnd.amazon.eventstream' },
      },
      handle: (input, { req, res, ctx }) =>
        amzn(req, res, async () => {
          const m = await groupC(models, ctx, modelId(req), 'bedrock.invoke-with-response-stream');
          const started = Date.now();
          const { native, stream } = await invoke(models, m, input.body, started, true, ctx);
          gatewayHeaders(res, stream);
          let firstByte = 0;
          const metrics = invocationMetrics(started, () => firstByte);
          async function* chunks() {
            for await (const c of native.chunks(stream, metrics)) {
              firstByte ||= Date.now() - started;
              yield { event: 'chunk', payload: { bytes: Buffer.from(JSON.stringify(c)).toString('base64') } };
            }
          }
          await pipeEventStream(res, chunks(), streamException, { 'x-amzn-bedrock-content-type': 'application/json' });
          return undefined;
        }),
    }),
  ];
}
