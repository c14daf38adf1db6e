import type { ModelsService } from '../core/models/service';
import type { Route } from './routes';

/** PLACEHOLDER: Group A images and audio, replaced by its routes. */
export function azureMediaRoutes(_models: ModelsService): Route[] {
  return [];
}
