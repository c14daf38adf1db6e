import type { ModelsService } from '../core/models/service';
import type { Route } from './routes';

/** PLACEHOLDER: Group C (Bedrock messages and runtime paths), replaced by its routes. */
export function bedrockRoutes(_models: ModelsService): Route[] {
  return [];
}
