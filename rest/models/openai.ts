import type { ModelsService } from '../../core/models/service';
import { chatRoute, embeddingsRoute } from './azure';
import { imagesRoute, transcriptionsRoute } from './azure-media';
import { azureV1, OPENAI } from './doors';
import type { Route } from '../shared/routes';

/**
 * The OpenAI-compatible door: the service's prefix is an OpenAI base URL (`new OpenAI({ baseURL:
 * '<base>/proxy/api/v1' })`), any catalog model named in the body, whatever its provider; and
 * Azure's v1 layout (`<base>/proxy/api/v1/azure/openai/v1/...`, model in the body), also without
 * `/v1`, which is where `createAzure({ baseURL: '<base>/proxy/api/v1/azure/openai' })` calls a host
 * not named like Azure's. The handlers are group A's (azure.ts, azure-media.ts), mounted at each door.
 */
export function openAiRoutes(models: ModelsService): Route[] {
  return [OPENAI, azureV1('/azure/openai/v1'), azureV1('/azure/openai')].flatMap((door) => [
    chatRoute(models, door),
    embeddingsRoute(models, door),
    imagesRoute(models, door),
    transcriptionsRoute(models, door),
  ]);
}
