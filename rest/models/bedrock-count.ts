import { z } from 'zod';
import { Base64, ConverseRequest, converseToChat, converseTools } from '../../core/models/vendors/bedrock';
import { BadRequest } from '../../core/shared/errors';
import type { ModelsService } from '../../core/models/service';
import type { Route } from '../shared/routes';
import { amzn, bedrockErrorBody, groupC, wireBody } from './bedrock-common';
import { nativeCall } from './bedrock-invoke';
import { define, lmKey } from './common';
import { countTokensDocs } from './docs-bedrock-count';

/**
 * The Bedrock runtime's CountTokens (`POST /model/{modelId}/count-tokens`, the AWS SDK's
 * CountTokensCommand): `{"input": {"converse": {messages, system, toolConfig}}}` or
 * `{"input": {"invokeModel": {"body": <base64 of a native body>}}}`, read as Converse and InvokeModel
 * read them, answered `{"inputTokens": n}` with the gateway's count (ModelsService.countTokens).
 */
export const CountTokensBody = z.object({
  input: z.object({
    converse: ConverseRequest.optional(),
    invokeModel: z.object({ body: Base64 }).optional(),
  }),
});

/** The native body of `invokeModel`: base64 of a JSON object (400 when it is not). */
function nativeBody(base64: string): unknown {
  try {
    return JSON.parse(Buffer.from(base64, 'base64').toString('utf8'));
  } catch {
    throw new BadRequest('input.invokeModel.body: the body must be base64 of a JSON native request', { code: 'invalid_request' });
  }
}

export function countTokensRoute(models: ModelsService): Route {
  return define({
    method: 'post',
    path: '/bedrock/model/:modelId/count-tokens',
    tags: ['group C'],
    summary: 'Bedrock runtime CountTokens (a Converse or InvokeModel input)',
    input: { body: z.unknown() },
    credential: lmKey,
    errorBody: bedrockErrorBody,
    docs: countTokensDocs(CountTokensBody),
    responses: { 200: { description: '`{"inputTokens": n}`' } },
    handle: (input, { req, res, ctx }) =>
      amzn(req, res, async () => {
        const m = await groupC(models, ctx, req.params.modelId, 'bedrock.count-tokens');
        const counted = await models.countTokens(
          {
            ...m,
            read: () => {
              const { converse, invokeModel } = wireBody(CountTokensBody, input.body).input;
              if ((converse === undefined) === (invokeModel === undefined)) {
                throw new BadRequest('input: exactly one of converse or invokeModel is required', { code: 'invalid_request' });
              }
              if (converse) return { messages: converseToChat(converse), tools: converseTools(converse).tools };
              const { messages, tools } = nativeCall(nativeBody(invokeModel!.body), m.model.id, Date.now()).chat;
              return { messages, tools };
            },
          },
          ctx,
        );
        return { inputTokens: counted.tokens };
      }),
  });
}
