import type { ServiceModule } from './shared/module';
import { createChatModule } from './chat';
import { createModelsModule } from './models';
import { createSearchModule } from './search';
import { createTokenModule } from './token';

/** Every service of the platform, in start and composition order: adding one is one line here. */
export const SERVICES: readonly ServiceModule[] = [createTokenModule(), createSearchModule(), createModelsModule(), createChatModule()];
