import type { AnswerModels } from '../core/chat/ports';

/** The model gateway at `baseUrl` over its group A route. PLACEHOLDER: helper fills in. */
export function restAnswerModels(_opts: { baseUrl: string; timeoutMs?: number }): AnswerModels {
  return {
    open: async () => { throw new Error('restAnswerModels: not built yet'); },
    chat: async () => { throw new Error('restAnswerModels: not built yet'); },
  };
}
