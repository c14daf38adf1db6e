import type { ModelsService } from '../../core/models/service';
import { anthropicRoutes } from './anthropic';
import { countTokensRoute } from './bedrock-count';
import { converseRoute, runtimeRoutes } from './bedrock-runtime';
import type { Route } from '../shared/routes';

/**
 * Group C (DECISIONS): the messages routes `/bedrock/v1/messages/{anthropic,llama,nova}?modelId=`
 * (family 1 in Anthropic's Messages format, families 2 and 3 in Bedrock's Converse format) and the
 * Bedrock runtime's own paths for the AWS SDK. Families 2 and 3 differ only in what their models
 * accept: the catalog's input kinds decide whether an image, a document or a video is taken (400 if not).
 */
export function bedrockRoutes(models: ModelsService): Route[] {
  const modelId = (req: { query: Record<string, unknown> }) => req.query.modelId;
  return [
    ...anthropicRoutes(models),
    converseRoute(
      models,
      '/bedrock/v1/messages/llama',
      'bedrock.messages.llama',
      modelId,
      'Messages, family 2 (Bedrock Converse wire format)',
    ),
    converseRoute(
      models,
      '/bedrock/v1/messages/nova',
      'bedrock.messages.nova',
      modelId,
      'Messages, family 3 (Bedrock Converse wire format; image, document and video blocks for the models that take them)',
    ),
    ...runtimeRoutes(models),
    countTokensRoute(models),
  ];
}
