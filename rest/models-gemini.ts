import type { ModelsService } from '../core/models/service';
import type { Route } from './routes';

/** PLACEHOLDER: Group B (Gemini generateContent), replaced by its routes. */
export function geminiRoutes(_models: ModelsService): Route[] {
  return [];
}
